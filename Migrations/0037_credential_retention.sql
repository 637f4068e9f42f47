-- Retention of sign-in credentials and e-mails that can no longer be used. Nothing deleted them:
-- every session ever opened stayed, with every refresh token it was ever issued (a device that
-- refreshes every quarter of an hour adds close to a hundred a day), every verification and reset
-- token, and every e-mail sent, links included. The hourly retention pass now also deletes, by the
-- database's clock:
--
-- refresh_tokens  a day after they expired. Until then a used one presented again still revokes
--                 its session; after it, it is refused as unknown, as any expired token is.
-- sessions        30 days after they ended (expired or revoked), with their refresh tokens. An
--                 account's last activity (`spotterctl accounts show`) is its sessions' last use,
--                 so the last use among the sessions deleted is kept on the account
--                 (`accounts.ended_sessions_used_at`, written only here).
-- account_tokens  a day after they expired (verification 48 hours, reset one hour after issue; the
--                 reset throttle counts the last hour's).
-- email_outbox    sent messages 30 days after they were sent. Pending and failed ones stay for the
--                 mailer and the operator (`spotterctl outbox`).
--
-- Each is found through an index on when it ends, so an hourly pass reads only what it deletes; a
-- session's refresh tokens, which its deletion takes with it, through one on their session (the
-- key's check read all of the tenant's tokens for each session deleted).

CREATE INDEX refresh_tokens_expiry_idx ON refresh_tokens (expires_at);
CREATE INDEX refresh_tokens_session_idx ON refresh_tokens (tenant_id, session_id);
CREATE INDEX account_tokens_expiry_idx ON account_tokens (expires_at);
-- least() skips NULLs: a session ends when it expires or when it is revoked, whichever is first.
CREATE INDEX sessions_end_idx ON sessions ((least(expires_at, revoked_at)));
CREATE INDEX email_outbox_sent_idx ON email_outbox (sent_at) WHERE status = 'sent';

ALTER TABLE accounts ADD COLUMN ended_sessions_used_at timestamptz;

CREATE POLICY retention ON accounts FOR ALL TO spotter_retention USING (true) WITH CHECK (true);
GRANT SELECT, UPDATE (ended_sessions_used_at) ON accounts TO spotter_retention;
CREATE POLICY retention ON sessions FOR ALL TO spotter_retention USING (true);
CREATE POLICY retention ON refresh_tokens FOR ALL TO spotter_retention USING (true);
CREATE POLICY retention ON account_tokens FOR ALL TO spotter_retention USING (true);
CREATE POLICY retention ON email_outbox FOR ALL TO spotter_retention USING (true);
GRANT SELECT, DELETE ON sessions, refresh_tokens, account_tokens, email_outbox TO spotter_retention;

-- Deletes the credentials and e-mails above; returns how many of each.
CREATE FUNCTION spotter_purge_credentials()
RETURNS TABLE (ended_sessions bigint, expired_refresh_tokens bigint, expired_account_tokens bigint, sent_emails bigint)
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
BEGIN
    WITH gone AS (
        DELETE FROM refresh_tokens WHERE expires_at < now() - interval '1 day' RETURNING 1
    ) SELECT count(*) INTO expired_refresh_tokens FROM gone;
    WITH gone AS (
        DELETE FROM sessions WHERE least(expires_at, revoked_at) < now() - interval '30 days'
        RETURNING tenant_id, account_id, last_used_at
    ), kept AS (
        UPDATE accounts a SET ended_sessions_used_at = greatest(a.ended_sessions_used_at, g.used_at)
        FROM (SELECT tenant_id, account_id, max(last_used_at) AS used_at FROM gone GROUP BY tenant_id, account_id) g
        WHERE a.tenant_id = g.tenant_id AND a.account_id = g.account_id
    ) SELECT count(*) INTO ended_sessions FROM gone;
    WITH gone AS (
        DELETE FROM account_tokens WHERE expires_at < now() - interval '1 day' RETURNING 1
    ) SELECT count(*) INTO expired_account_tokens FROM gone;
    WITH gone AS (
        DELETE FROM email_outbox WHERE status = 'sent' AND sent_at < now() - interval '30 days' RETURNING 1
    ) SELECT count(*) INTO sent_emails FROM gone;
    RETURN NEXT;
END
$$;

ALTER FUNCTION spotter_purge_credentials() OWNER TO spotter_retention;
REVOKE ALL ON FUNCTION spotter_purge_credentials() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION spotter_purge_credentials() TO spotter_app, spotter_admin;
