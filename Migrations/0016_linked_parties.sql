-- The `linked_read` policy let a coach and a lifter with a link in any state (pending, declined,
-- ended) read each other's whole `tenants` row: tier, tier expiry, time zone and unit. Across a
-- link only the display name is needed (for links, comments, assignments and the access log), and
-- a coach needs an active client's time zone (for "workouts this week"). Row-level security cannot
-- hide columns, so the policy goes and one function answers exactly that.

DROP POLICY linked_read ON tenants;

-- The caller and every tenant linked with the caller in any state: their display names, and the
-- time zone of the caller and of the caller's active clients (NULL for everyone else).
CREATE FUNCTION spotter_linked_parties()
RETURNS TABLE (tenant_id uuid, display_name text, time_zone text)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
    SELECT t.tenant_id, t.display_name, t.time_zone
    FROM tenants t
    WHERE t.tenant_id = spotter_current_tenant()
    UNION ALL
    SELECT t.tenant_id, t.display_name,
           CASE WHEN EXISTS (SELECT FROM coach_links a
                             WHERE a.coach_id = spotter_current_tenant() AND a.tenant_id = t.tenant_id
                               AND a.status = 'active')
                THEN t.time_zone END
    FROM tenants t
    WHERE t.tenant_id <> spotter_current_tenant()
      AND t.tenant_id IN (SELECT l.tenant_id FROM coach_links l WHERE l.coach_id = spotter_current_tenant()
                          UNION
                          SELECT l.coach_id FROM coach_links l WHERE l.tenant_id = spotter_current_tenant())
$$;

ALTER FUNCTION spotter_linked_parties() OWNER TO spotter_auth;
REVOKE ALL ON FUNCTION spotter_linked_parties() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION spotter_linked_parties() TO spotter_app, spotter_admin;
