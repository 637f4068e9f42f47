-- 0037 let spotter_retention read the whole rows of the tables its function deletes from: password
-- hashes, token hashes and e-mail bodies it never needs. It now reads only the columns that decide
-- what goes, and what it keeps of a deleted session (`spotter_purge_credentials`).

REVOKE SELECT ON accounts, sessions, refresh_tokens, account_tokens, email_outbox FROM spotter_retention;
GRANT SELECT (tenant_id, account_id, ended_sessions_used_at) ON accounts TO spotter_retention;
GRANT SELECT (tenant_id, account_id, last_used_at, expires_at, revoked_at) ON sessions TO spotter_retention;
GRANT SELECT (expires_at) ON refresh_tokens TO spotter_retention;
GRANT SELECT (expires_at) ON account_tokens TO spotter_retention;
GRANT SELECT (status, sent_at) ON email_outbox TO spotter_retention;
