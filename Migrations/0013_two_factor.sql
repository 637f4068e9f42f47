-- Two-factor sign-in with TOTP (RFC 6238) and single-use recovery codes.
--
-- account_mfa        the account's TOTP secret, sealed with AES-256-GCM under a key from outside the
--                    database (key_id names it), bound to the account; enabled_at is NULL until
--                    the owner confirms a first code. last_step is the newest 30-second step whose
--                    code was accepted: a code of that step or an earlier one is refused (replay),
--                    on every replica, because the check is one conditional UPDATE.
-- mfa_recovery_codes SHA-256 of each recovery code; used_at once used.
-- mfa_challenges     the second step of a sign-in whose password was right: a short-lived token
--                    (stored hashed) with what the session will need, and how many codes were tried.

CREATE TABLE account_mfa (
    tenant_id      uuid NOT NULL,
    account_id     uuid NOT NULL,
    key_id         text NOT NULL,
    sealed_secret  bytea NOT NULL,
    enabled_at     timestamptz,
    last_step      bigint NOT NULL DEFAULT 0,
    failures       integer NOT NULL DEFAULT 0 CHECK (failures >= 0),
    locked_until   timestamptz,
    created_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, account_id),
    FOREIGN KEY (tenant_id, account_id) REFERENCES accounts (tenant_id, account_id) ON DELETE CASCADE
);

CREATE TABLE mfa_recovery_codes (
    tenant_id   uuid NOT NULL,
    account_id  uuid NOT NULL,
    code_hash   bytea NOT NULL,
    used_at     timestamptz,
    PRIMARY KEY (tenant_id, account_id, code_hash),
    FOREIGN KEY (tenant_id, account_id) REFERENCES accounts (tenant_id, account_id) ON DELETE CASCADE
);

CREATE TABLE mfa_challenges (
    tenant_id       uuid NOT NULL,
    challenge_hash  bytea NOT NULL,
    account_id      uuid NOT NULL,
    source          text NOT NULL,
    address         text NOT NULL,
    known_device    uuid,
    device_label    text NOT NULL DEFAULT '',
    attempts        integer NOT NULL DEFAULT 0,
    expires_at      timestamptz NOT NULL,
    used_at         timestamptz,
    PRIMARY KEY (tenant_id, challenge_hash),
    FOREIGN KEY (tenant_id, account_id) REFERENCES accounts (tenant_id, account_id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX mfa_challenges_hash_key ON mfa_challenges (challenge_hash);
CREATE INDEX mfa_challenges_expiry_idx ON mfa_challenges (expires_at);

DO $$
DECLARE
    t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['account_mfa', 'mfa_recovery_codes', 'mfa_challenges']
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

-- The tenant of a sign-in challenge, before anyone is signed in.
CREATE POLICY auth_lookup ON mfa_challenges FOR SELECT TO spotter_auth USING (true);
GRANT SELECT ON mfa_challenges TO spotter_auth;
CREATE FUNCTION spotter_tenant_for_mfa_challenge(hash bytea) RETURNS uuid
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public
AS $$ SELECT tenant_id FROM mfa_challenges WHERE challenge_hash = hash $$;
ALTER FUNCTION spotter_tenant_for_mfa_challenge(bytea) OWNER TO spotter_auth;
REVOKE ALL ON FUNCTION spotter_tenant_for_mfa_challenge(bytea) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION spotter_tenant_for_mfa_challenge(bytea) TO spotter_app;
