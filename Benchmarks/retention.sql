-- Credential retention at scale (Benchmarks/README.md "Retention"), run by Benchmarks/retention.sh on a
-- freshly migrated database: 20,000 accounts with three sessions each opened over 150 days, fifteen
-- refresh tokens per session, two e-mailed tokens and three sent e-mails per account, and 95,000
-- coaches' assignments. Times spotter_purge_credentials() on the backlog, with nothing to do, and
-- on a day's worth of sessions ended; then a lifter's erasure, for the key from assignments.
\set QUIET on
SET session_replication_role = replica;
INSERT INTO tenants (tenant_id, kind, display_name) SELECT gen_random_uuid(), 'lifter', 'x' FROM generate_series(1, 20000);
INSERT INTO accounts (tenant_id, account_id, email, username, password_hash)
SELECT tenant_id, gen_random_uuid(), tenant_id || '@example.com', tenant_id::text, 'h' FROM tenants;
INSERT INTO sessions (tenant_id, session_id, account_id, access_token_hash, access_expires_at, created_at, last_used_at,
                      expires_at, revoked_at)
SELECT tenant_id, gen_random_uuid(), account_id, decode(md5(random()::text), 'hex'), o + interval '15 min', o,
       o + interval '1 day', o + interval '90 days', CASE WHEN random() < 0.05 THEN o + interval '2 days' END
FROM (SELECT tenant_id, account_id, now() - random() * interval '150 days' - g * interval '1 second' AS o
      FROM accounts, generate_series(1, 3) g) t;
INSERT INTO refresh_tokens (tenant_id, token_hash, session_id, expires_at, created_at, used_at)
SELECT tenant_id, decode(md5(random()::text || g), 'hex'), session_id, created_at + g * interval '1 hour' + interval '30 days',
       created_at + g * interval '1 hour', created_at + g * interval '1 hour' + interval '15 min'
FROM sessions, generate_series(1, 15) g;
INSERT INTO account_tokens (tenant_id, token_hash, account_id, purpose, expires_at, created_at)
SELECT tenant_id, decode(md5(random()::text), 'hex'), account_id, 'verify_email', c + interval '48 hours', c
FROM (SELECT tenant_id, account_id, now() - random() * interval '150 days' - g * interval '1 second' AS c
      FROM accounts, generate_series(1, 2) g) t;
INSERT INTO email_outbox (tenant_id, message_id, kind, recipient, subject, body, status, created_at, sent_at)
SELECT tenant_id, gen_random_uuid(), 'verify_email', email, 's', 'b', 'sent', c, c
FROM (SELECT tenant_id, email, now() - random() * interval '150 days' - g * interval '1 second' AS c
      FROM accounts, generate_series(1, 3) g) t;
-- 1,000 coaches, five assignments to each of 19 lifters of theirs, a tenth removed.
INSERT INTO assignments (tenant_id, assignment_id, lifter_id, template_id, created_at, removed_at)
SELECT c.tenant_id, gen_random_uuid(), l.tenant_id, gen_random_uuid(), now(), CASE WHEN random() < 0.1 THEN now() END
FROM (SELECT tenant_id, row_number() OVER (ORDER BY tenant_id) AS n FROM tenants LIMIT 1000) c
JOIN (SELECT tenant_id, row_number() OVER (ORDER BY tenant_id) AS n FROM tenants OFFSET 1000) l ON l.n % 1000 = c.n - 1,
     generate_series(1, 5);
RESET session_replication_role;
VACUUM ANALYZE;
SELECT (SELECT count(*) FROM sessions) AS sessions, (SELECT count(*) FROM refresh_tokens) AS refresh_tokens,
       (SELECT count(*) FROM account_tokens) AS account_tokens, (SELECT count(*) FROM email_outbox) AS emails,
       (SELECT count(*) FROM assignments) AS assignments;
\timing on
\echo == the first pass: the backlog
SET ROLE spotter_app;
SELECT * FROM spotter_purge_credentials();
RESET ROLE;
\timing off
VACUUM ANALYZE;
\timing on
\echo == the next pass: nothing to delete
SET ROLE spotter_app;
SELECT * FROM spotter_purge_credentials();
RESET ROLE;
\timing off
UPDATE sessions SET expires_at = now() - interval '31 days' WHERE random() < 0.05;
UPDATE refresh_tokens SET expires_at = now() - interval '25 hours' WHERE random() < 0.02;
VACUUM ANALYZE;
\timing on
\echo == a pass after a twentieth of the sessions and a fiftieth of the refresh tokens ended
SET ROLE spotter_app;
SELECT * FROM spotter_purge_credentials();
RESET ROLE;
\timing off
\echo == erasing a lifter with assignments: the key check from assignments
SELECT lifter_id AS erased FROM assignments ORDER BY assignment_id LIMIT 1 \gset
BEGIN;
EXPLAIN (ANALYZE, COSTS OFF) DELETE FROM tenants WHERE tenant_id = :'erased';
ROLLBACK;
