-- What the last reconciliation of a lifter's achievements learned, so the next one can skip the
-- one costly read (the first personal record) when nothing that decides it changed since.
--
-- The first record is decided by the sets at or before it; at ten years of training, finding it
-- (or finding there is none) reads up to every set (Benchmarks/README.md "Activity"). A
-- reconciliation reads the change feed since `feed_seq`: when the only workout changes are new
-- workouts started after `last_start` (the common case: a workout logged today), a first record
-- found before stays the first, and when there was none only the new sets need checking. Any
-- other change — an edit, a deletion, a back-dated workout — recomputes it from scratch.

CREATE TABLE activity_state (
    tenant_id       uuid PRIMARY KEY REFERENCES tenants (tenant_id) ON DELETE CASCADE,
    -- The feed's last number when the facts were read.
    feed_seq        bigint NOT NULL,
    -- The latest start among the live workouts then; NULL without any.
    last_start      timestamptz,
    -- The first workout with a new personal record then, and its start; NULL without one.
    first_record    uuid,
    first_record_at timestamptz,
    reconciled_at   timestamptz NOT NULL
);

ALTER TABLE activity_state ENABLE ROW LEVEL SECURITY;
ALTER TABLE activity_state FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON activity_state TO spotter_app
    USING (tenant_id = spotter_current_tenant()) WITH CHECK (tenant_id = spotter_current_tenant());
CREATE POLICY admin_all ON activity_state TO spotter_admin USING (true) WITH CHECK (true);
GRANT SELECT, INSERT, UPDATE, DELETE ON activity_state TO spotter_app, spotter_admin;
