-- A token check never waits for another call of the same session.
--
-- `spotter_authenticate` notes a session's use at most once a minute (0006_training.sql), and
-- since the token check begins the call's own transaction that note's row lock was held until the
-- call committed. A second call with the same token in that moment (an app sends several at once)
-- tried to note the same use and waited for the first call to finish, however long it ran.
-- Now the note skips a session row another transaction holds: that one is noting the same use.

CREATE OR REPLACE FUNCTION spotter_authenticate(hash bytea, as_of timestamptz)
RETURNS TABLE (tenant_id uuid, account_id uuid, session_id uuid, kind text, tier text, tier_expires_at timestamptz,
               time_zone text, unit text)
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
#variable_conflict use_column
BEGIN
    RETURN QUERY
    WITH live AS (
        SELECT s.tenant_id, s.account_id, s.session_id, s.last_used_at
        FROM sessions s
        JOIN accounts a ON a.tenant_id = s.tenant_id AND a.account_id = s.account_id
        WHERE s.access_token_hash = hash
          AND s.revoked_at IS NULL
          AND s.access_expires_at > as_of
          AND s.expires_at > as_of
          AND a.status = 'active'
    ), unheld AS (
        SELECT s.tenant_id, s.session_id
        FROM sessions s
        JOIN live ON s.tenant_id = live.tenant_id AND s.session_id = live.session_id
        WHERE live.last_used_at < as_of - interval '1 minute'
        FOR UPDATE OF s SKIP LOCKED
    ), touched AS (
        UPDATE sessions s SET last_used_at = as_of
        FROM unheld
        WHERE s.tenant_id = unheld.tenant_id AND s.session_id = unheld.session_id
    )
    SELECT live.tenant_id, live.account_id, live.session_id, t.kind, t.tier, t.tier_expires_at, t.time_zone, t.unit
    FROM live JOIN tenants t ON t.tenant_id = live.tenant_id;
END
$$;
