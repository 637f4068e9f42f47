-- A lifter learns when a coach cannot see their data: when the coach's tier covers fewer clients
-- than the coach has (a plan that lapsed or was lowered), the clients who joined last are beyond
-- it, and reads of their data are refused (CoachEntitlements.covers). The lifter was not told.
--
-- `spotter_my_coaches_coverage()` answers, for the lifter the transaction acts as, each active
-- coach's stored tier and its end, and how many of that coach's active clients joined before this
-- lifter. spotterd decides from them whether the link is paused and says only that (ListLinks'
-- `paused`); a coach's tier is never shown across tenants.

CREATE FUNCTION spotter_my_coaches_coverage()
RETURNS TABLE (coach_id uuid, tier text, tier_expires_at timestamptz, clients_before integer)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
    SELECT l.coach_id, t.tier, t.tier_expires_at,
           (SELECT count(*)::int FROM coach_links o
            WHERE o.coach_id = l.coach_id AND o.status = 'active'
              AND (coalesce(o.responded_at, o.created_at), o.link_id)
                  < (coalesce(l.responded_at, l.created_at), l.link_id))
    FROM coach_links l
    JOIN tenants t ON t.tenant_id = l.coach_id
    WHERE l.tenant_id = spotter_current_tenant() AND l.status = 'active'
$$;

REVOKE ALL ON FUNCTION spotter_my_coaches_coverage() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION spotter_my_coaches_coverage() TO spotter_app;
