-- Why an access token no longer works, for the answer to a call that sent it.
--
-- Every refused token was "the access token is not valid", so an app could not tell a token that
-- only needs a refresh from a session that has ended and needs a sign-in. Only a refused call asks
-- this (authentication itself is unchanged), and it says no more than the holder of the token
-- knows: whether the token was this session's, and whether the session still lives.
--
-- 'expired'  the token was a live session's latest and its 15 minutes are over: refresh.
-- 'ended'    the session was signed out, revoked or has expired, or the account is disabled: sign in.
-- NULL       no session issued this token (or a later one replaced it).
CREATE FUNCTION spotter_access_token_state(hash bytea, as_of timestamptz) RETURNS text
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
    SELECT CASE
        WHEN s.revoked_at IS NOT NULL OR s.expires_at <= as_of OR a.status <> 'active' THEN 'ended'
        WHEN s.access_expires_at <= as_of THEN 'expired'
    END
    FROM sessions s
    JOIN accounts a ON a.tenant_id = s.tenant_id AND a.account_id = s.account_id
    WHERE s.access_token_hash = hash
$$;
REVOKE ALL ON FUNCTION spotter_access_token_state(bytea, timestamptz) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION spotter_access_token_state(bytea, timestamptz) TO spotter_app;
