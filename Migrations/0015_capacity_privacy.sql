-- `spotter_coach_capacity(coach)` answered any signed-in caller with any coach's tier and number of
-- active clients. It now answers only the coach, a lifter with a pending or active link to the
-- coach, or a caller who holds one of the coach's redeemable invite codes (by its hash); anyone
-- else gets no row, as for a tenant that does not exist.

DROP FUNCTION spotter_coach_capacity(uuid);

CREATE FUNCTION spotter_coach_capacity(coach uuid, invite_hash bytea, as_of timestamptz)
RETURNS TABLE (kind text, tier text, tier_expires_at timestamptz, active_clients bigint)
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
BEGIN
    IF coach IS DISTINCT FROM spotter_current_tenant()
        AND NOT EXISTS (
            SELECT FROM coach_links l
            WHERE l.coach_id = coach AND l.tenant_id = spotter_current_tenant() AND l.status IN ('pending', 'active'))
        AND NOT EXISTS (
            SELECT FROM coach_invites i
            WHERE i.tenant_id = coach AND i.code_hash = invite_hash
              AND i.used_at IS NULL AND i.revoked_at IS NULL AND i.expires_at > as_of)
    THEN
        RETURN;
    END IF;
    PERFORM pg_advisory_xact_lock(hashtextextended('spotter.coach:' || coach::text, 0));
    RETURN QUERY
    SELECT t.kind, t.tier, t.tier_expires_at,
           (SELECT count(*) FROM coach_links l WHERE l.coach_id = coach AND l.status = 'active')
    FROM tenants t WHERE t.tenant_id = coach;
END
$$;

ALTER FUNCTION spotter_coach_capacity(uuid, bytea, timestamptz) OWNER TO spotter_auth;
REVOKE ALL ON FUNCTION spotter_coach_capacity(uuid, bytea, timestamptz) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION spotter_coach_capacity(uuid, bytea, timestamptz) TO spotter_app;
