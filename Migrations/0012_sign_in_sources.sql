-- Sign-in throttling that cannot be turned into a lockout.
--
-- Until now one counter per account locked it for everyone: eight wrong passwords from anywhere
-- kept the owner out too. Now:
--   * `sign_in_failures` counts failures per account and source, a source being the client's
--     address or a known device; only that source is locked (30 s, doubling to 15 minutes).
--   * `known_devices` holds a token per device that signed in to the account (stored hashed). A
--     sign-in that sends one is its own source and skips the account-wide ceiling below.
--   * `accounts.failed_sign_ins` / `locked_until` become that ceiling: failures from unknown
--     sources within a window (`failure_window_start`), and until when the next unknown attempt
--     must wait once there were too many. It spaces attempts out; it never refuses a known device.

ALTER TABLE accounts ADD COLUMN failure_window_start timestamptz;
COMMENT ON COLUMN accounts.failed_sign_ins IS
    'failed sign-ins from unknown devices since failure_window_start (the account-wide ceiling)';
COMMENT ON COLUMN accounts.locked_until IS
    'unknown devices wait until then before their next attempt; known devices never do';

CREATE TABLE sign_in_failures (
    tenant_id     uuid NOT NULL,
    account_id    uuid NOT NULL,
    source        text NOT NULL CHECK (source ~ '^(address|device):'),
    failures      integer NOT NULL DEFAULT 0 CHECK (failures >= 0),
    locked_until  timestamptz,
    updated_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, account_id, source),
    FOREIGN KEY (tenant_id, account_id) REFERENCES accounts (tenant_id, account_id) ON DELETE CASCADE
);
-- Rows of sources that went quiet are purged by age.
CREATE INDEX sign_in_failures_updated_idx ON sign_in_failures (updated_at);

CREATE TABLE known_devices (
    tenant_id     uuid NOT NULL,
    device_id     uuid NOT NULL,
    account_id    uuid NOT NULL,
    token_hash    bytea NOT NULL,
    label         text NOT NULL DEFAULT '',
    created_at    timestamptz NOT NULL DEFAULT now(),
    last_used_at  timestamptz NOT NULL DEFAULT now(),
    expires_at    timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, device_id),
    FOREIGN KEY (tenant_id, account_id) REFERENCES accounts (tenant_id, account_id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX known_devices_token_key ON known_devices (token_hash);
CREATE INDEX known_devices_account_idx ON known_devices (tenant_id, account_id, last_used_at DESC);

DO $$
DECLARE
    t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['sign_in_failures', 'known_devices']
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

-- What the old single counter held applied to every source; it starts over as the ceiling.
UPDATE accounts SET failed_sign_ins = 0, locked_until = NULL;
