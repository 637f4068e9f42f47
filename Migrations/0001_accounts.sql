-- Tenants, accounts, sessions, single-use tokens, the e-mail outbox and the audit log, with
-- row-level security from the start.
--
-- Roles (cluster-wide; created here when missing, which needs CREATEROLE):
--   spotter_app    the server's request work: sees only the tenant set by
--                  set_config('spotter.tenant_id', …, true) in the current transaction.
--   spotter_admin  spotterctl: sees every tenant; may append to but never change the audit log.
--   spotter_auth   owns the few SECURITY DEFINER functions that find a tenant before anyone is
--                  signed in (by login, e-mail or token hash); can do nothing else.
-- None of them owns a table, is superuser or has BYPASSRLS.

DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'spotter_app') THEN
        CREATE ROLE spotter_app NOLOGIN NOSUPERUSER NOBYPASSRLS;
    END IF;
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'spotter_admin') THEN
        CREATE ROLE spotter_admin NOLOGIN NOSUPERUSER NOBYPASSRLS;
    END IF;
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'spotter_auth') THEN
        CREATE ROLE spotter_auth NOLOGIN NOSUPERUSER NOBYPASSRLS;
    END IF;
END
$$;

-- The acting tenant of the current transaction, or NULL when none is set (then RLS shows nothing).
CREATE FUNCTION spotter_current_tenant() RETURNS uuid
LANGUAGE sql STABLE PARALLEL SAFE
AS $$ SELECT nullif(current_setting('spotter.tenant_id', true), '')::uuid $$;

CREATE TABLE tenants (
    tenant_id       uuid PRIMARY KEY,
    kind            text NOT NULL CHECK (kind IN ('lifter', 'coach')),
    display_name    text NOT NULL CHECK (length(display_name) BETWEEN 1 AND 80),
    tier            text NOT NULL DEFAULT 'free',
    tier_expires_at timestamptz,
    time_zone       text NOT NULL DEFAULT 'UTC',
    unit            text NOT NULL DEFAULT 'kg' CHECK (unit IN ('kg', 'lb')),
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    version         bigint NOT NULL DEFAULT 1,
    CONSTRAINT tenants_tier_fits_kind CHECK (
        tier = 'free' OR (kind = 'lifter' AND tier = 'pro') OR (kind = 'coach' AND tier IN ('coach', 'coach_pro'))
    )
);

CREATE TABLE accounts (
    tenant_id             uuid NOT NULL REFERENCES tenants (tenant_id) ON DELETE CASCADE,
    account_id            uuid NOT NULL,
    email                 text NOT NULL CHECK (email = lower(email)),
    username              text NOT NULL,
    password_hash         text NOT NULL,
    email_verified_at     timestamptz,
    status                text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled')),
    failed_sign_ins       integer NOT NULL DEFAULT 0,
    last_failed_sign_in   timestamptz,
    locked_until          timestamptz,
    created_at            timestamptz NOT NULL DEFAULT now(),
    updated_at            timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, account_id),
    UNIQUE (account_id)
);
-- Unique across all tenants: uniqueness is enforced whatever RLS lets a transaction see.
CREATE UNIQUE INDEX accounts_email_key ON accounts (email);
CREATE UNIQUE INDEX accounts_username_key ON accounts (lower(username));

CREATE TABLE sessions (
    tenant_id          uuid NOT NULL,
    session_id         uuid NOT NULL,
    account_id         uuid NOT NULL,
    device_label       text NOT NULL DEFAULT '',
    access_token_hash  bytea NOT NULL,
    access_expires_at  timestamptz NOT NULL,
    created_at         timestamptz NOT NULL DEFAULT now(),
    last_used_at       timestamptz NOT NULL DEFAULT now(),
    expires_at         timestamptz NOT NULL,
    revoked_at         timestamptz,
    revoked_reason     text,
    PRIMARY KEY (tenant_id, session_id),
    FOREIGN KEY (tenant_id, account_id) REFERENCES accounts (tenant_id, account_id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX sessions_access_token_key ON sessions (access_token_hash);
CREATE INDEX sessions_account_idx ON sessions (tenant_id, account_id, created_at DESC);

-- Every refresh token ever issued for a session: the current one has used_at NULL; a used one
-- presented again reveals a stolen token.
CREATE TABLE refresh_tokens (
    tenant_id   uuid NOT NULL,
    token_hash  bytea NOT NULL,
    session_id  uuid NOT NULL,
    expires_at  timestamptz NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    used_at     timestamptz,
    PRIMARY KEY (tenant_id, token_hash),
    FOREIGN KEY (tenant_id, session_id) REFERENCES sessions (tenant_id, session_id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX refresh_tokens_hash_key ON refresh_tokens (token_hash);

-- Single-use e-mailed tokens (verification, password reset), stored only as hashes.
CREATE TABLE account_tokens (
    tenant_id   uuid NOT NULL,
    token_hash  bytea NOT NULL,
    account_id  uuid NOT NULL,
    purpose     text NOT NULL CHECK (purpose IN ('verify_email', 'reset_password')),
    expires_at  timestamptz NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    used_at     timestamptz,
    PRIMARY KEY (tenant_id, token_hash),
    FOREIGN KEY (tenant_id, account_id) REFERENCES accounts (tenant_id, account_id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX account_tokens_hash_key ON account_tokens (token_hash);

-- E-mails waiting for the mailer, written in the same transaction as the change that causes them.
CREATE TABLE email_outbox (
    tenant_id        uuid NOT NULL REFERENCES tenants (tenant_id) ON DELETE CASCADE,
    message_id       uuid NOT NULL,
    kind             text NOT NULL,
    recipient        text NOT NULL,
    subject          text NOT NULL,
    body             text NOT NULL,
    status           text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'failed')),
    attempts         integer NOT NULL DEFAULT 0,
    next_attempt_at  timestamptz NOT NULL DEFAULT now(),
    last_error       text,
    created_at       timestamptz NOT NULL DEFAULT now(),
    sent_at          timestamptz,
    PRIMARY KEY (tenant_id, message_id)
);
CREATE INDEX email_outbox_pending_idx ON email_outbox (next_attempt_at) WHERE status = 'pending';

-- Failed sign-ins per client address (not tenant data: no tenant is known yet).
CREATE TABLE sign_in_address_failures (
    address        text PRIMARY KEY,
    failures       integer NOT NULL,
    window_start   timestamptz NOT NULL,
    blocked_until  timestamptz
);

-- Append-only record of every administrative and security-relevant action.
CREATE TABLE audit_log (
    audit_id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at                timestamptz NOT NULL DEFAULT now(),
    actor_kind        text NOT NULL CHECK (actor_kind IN ('admin', 'tenant', 'system')),
    actor             text NOT NULL,
    os_user           text,
    action            text NOT NULL,
    target_tenant_id  uuid,
    target            text,
    reason            text,
    details           jsonb NOT NULL DEFAULT '{}'
);
CREATE INDEX audit_log_at_idx ON audit_log (at DESC);
CREATE INDEX audit_log_target_idx ON audit_log (target_tenant_id, at DESC);

-- Row-level security: enabled and forced on every tenant table.
DO $$
DECLARE
    t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['tenants', 'accounts', 'sessions', 'refresh_tokens', 'account_tokens', 'email_outbox']
    LOOP
        EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
        EXECUTE format('ALTER TABLE %I FORCE ROW LEVEL SECURITY', t);
        EXECUTE format(
            'CREATE POLICY tenant_isolation ON %I TO spotter_app '
            'USING (tenant_id = spotter_current_tenant()) WITH CHECK (tenant_id = spotter_current_tenant())', t);
        EXECUTE format('CREATE POLICY admin_all ON %I TO spotter_admin USING (true) WITH CHECK (true)', t);
        EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON %I TO spotter_app, spotter_admin', t);
    END LOOP;
END
$$;

-- spotter_auth reads what the pre-sign-in lookups need and touches session use times.
CREATE POLICY auth_lookup ON accounts FOR SELECT TO spotter_auth USING (true);
CREATE POLICY auth_lookup ON sessions FOR SELECT TO spotter_auth USING (true);
CREATE POLICY auth_touch ON sessions FOR UPDATE TO spotter_auth USING (true) WITH CHECK (true);
CREATE POLICY auth_lookup ON refresh_tokens FOR SELECT TO spotter_auth USING (true);
CREATE POLICY auth_lookup ON account_tokens FOR SELECT TO spotter_auth USING (true);
GRANT SELECT ON accounts, sessions, refresh_tokens, account_tokens TO spotter_auth;
GRANT UPDATE (last_used_at) ON sessions TO spotter_auth;

GRANT SELECT, INSERT, UPDATE, DELETE ON sign_in_address_failures TO spotter_app, spotter_admin;
GRANT INSERT ON audit_log TO spotter_app, spotter_admin;
GRANT SELECT ON audit_log TO spotter_admin;

-- The tenant owning a username or e-mail address.
CREATE FUNCTION spotter_tenant_for_login(login text) RETURNS uuid
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public
AS $$ SELECT tenant_id FROM accounts WHERE email = lower(login) OR lower(username) = lower(login) LIMIT 1 $$;

-- The tenant owning an e-mail address.
CREATE FUNCTION spotter_tenant_for_email(address text) RETURNS uuid
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public
AS $$ SELECT tenant_id FROM accounts WHERE email = lower(address) $$;

-- The tenant of a refresh token, used or not.
CREATE FUNCTION spotter_tenant_for_refresh_token(hash bytea) RETURNS uuid
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public
AS $$ SELECT tenant_id FROM refresh_tokens WHERE token_hash = hash $$;

-- The tenant of a single-use account token.
CREATE FUNCTION spotter_tenant_for_account_token(hash bytea) RETURNS uuid
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public
AS $$ SELECT tenant_id FROM account_tokens WHERE token_hash = hash $$;

-- The live session of an access token (unexpired, unrevoked, account active), marked used at most
-- once a minute so authentication does not write on every call.
CREATE FUNCTION spotter_authenticate(hash bytea, as_of timestamptz)
RETURNS TABLE (tenant_id uuid, account_id uuid, session_id uuid)
LANGUAGE sql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
    UPDATE sessions s SET last_used_at = CASE
            WHEN s.last_used_at < as_of - interval '1 minute' THEN as_of ELSE s.last_used_at END
    FROM accounts a
    WHERE s.access_token_hash = hash
      AND s.revoked_at IS NULL
      AND s.access_expires_at > as_of
      AND s.expires_at > as_of
      AND a.tenant_id = s.tenant_id AND a.account_id = s.account_id AND a.status = 'active'
    RETURNING s.tenant_id, s.account_id, s.session_id
$$;

-- ALTER FUNCTION … OWNER needs the new owner to be able to create in the schema.
GRANT USAGE, CREATE ON SCHEMA public TO spotter_auth;

DO $$
DECLARE
    f text;
BEGIN
    FOREACH f IN ARRAY ARRAY['spotter_tenant_for_login(text)', 'spotter_tenant_for_email(text)',
        'spotter_tenant_for_refresh_token(bytea)', 'spotter_tenant_for_account_token(bytea)',
        'spotter_authenticate(bytea, timestamptz)']
    LOOP
        EXECUTE format('ALTER FUNCTION %s OWNER TO spotter_auth', f);
        EXECUTE format('REVOKE ALL ON FUNCTION %s FROM PUBLIC', f);
        EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO spotter_app', f);
    END LOOP;
END
$$;

GRANT USAGE ON SCHEMA public TO spotter_app, spotter_admin;
GRANT EXECUTE ON FUNCTION spotter_current_tenant() TO spotter_app, spotter_admin, spotter_auth;
