-- Redeeming a coach's invite code while the coach's own invitation to the same lifter waits
-- accepts that invitation (with the scopes the lifter grants now) instead of inserting a second
-- link; the invitation used to be recorded as declined, which the coach's history then showed.
-- The function runs as `spotter_auth` (0008), which may now change those columns of a link too.
GRANT UPDATE (status, scopes, responded_at, updated_at) ON coach_links TO spotter_auth;

CREATE OR REPLACE FUNCTION spotter_redeem_invite(hash bytea, lifter uuid, granted text[], link uuid, as_of timestamptz)
RETURNS uuid
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
DECLARE
    coach uuid;
BEGIN
    IF lifter IS DISTINCT FROM spotter_current_tenant()
        OR NOT EXISTS (SELECT FROM tenants t WHERE t.tenant_id = lifter AND t.kind = 'lifter') THEN
        RAISE EXCEPTION 'an invite is redeemed by the signed-in lifter only' USING ERRCODE = '42501';
    END IF;
    UPDATE coach_invites SET used_at = as_of, used_by = lifter
    WHERE code_hash = hash AND used_at IS NULL AND revoked_at IS NULL AND expires_at > as_of
    RETURNING tenant_id INTO coach;
    IF coach IS NULL THEN
        RETURN NULL;
    END IF;
    UPDATE coach_links l SET status = 'active', scopes = granted, responded_at = as_of, updated_at = as_of
    WHERE l.tenant_id = lifter AND l.coach_id = coach AND l.status = 'pending' AND l.requested_by = 'coach';
    IF NOT FOUND THEN
        INSERT INTO coach_links (tenant_id, link_id, coach_id, status, requested_by, scopes, created_at, responded_at,
                                 updated_at)
        VALUES (lifter, link, coach, 'active', 'coach', granted, as_of, as_of, as_of);
    END IF;
    RETURN coach;
END
$$;
