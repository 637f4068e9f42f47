-- Body metrics: body weight, body-fat percentage and tape measurements, one value per metric and
-- day. Stored in kilograms, percent and centimetres; a client's pounds and inches are converted
-- once, on the way in (like weights in 0006_training.sql). A deleted one stays as a tombstone for
-- sync. The `body` coaching scope now guards something: a coach reads a client's measurements only
-- with it.

CREATE TABLE body_measurements (
    tenant_id      uuid NOT NULL REFERENCES tenants (tenant_id) ON DELETE CASCADE,
    measurement_id uuid NOT NULL,
    metric         text NOT NULL CHECK (metric IN ('body_weight', 'body_fat', 'neck', 'shoulders', 'chest', 'waist',
        'hips', 'arm_left', 'arm_right', 'forearm_left', 'forearm_right', 'thigh_left', 'thigh_right', 'calf_left',
        'calf_right')),
    -- The lifter's local date.
    measured_on    date NOT NULL,
    value          numeric(9, 3) NOT NULL CHECK (value > 0 AND value <= 1000),
    note           text NOT NULL DEFAULT '' CHECK (length(note) <= 500),
    version        bigint NOT NULL DEFAULT 1,
    created_at     timestamptz NOT NULL,
    updated_at     timestamptz NOT NULL,
    deleted_at     timestamptz,
    PRIMARY KEY (tenant_id, measurement_id)
);
-- One live value per metric and day; a series reads one range of it.
CREATE UNIQUE INDEX body_measurements_day_key ON body_measurements (tenant_id, metric, measured_on)
    WHERE deleted_at IS NULL;

ALTER TABLE body_measurements ENABLE ROW LEVEL SECURITY;
ALTER TABLE body_measurements FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON body_measurements TO spotter_app
    USING (tenant_id = spotter_current_tenant()) WITH CHECK (tenant_id = spotter_current_tenant());
CREATE POLICY coach_read ON body_measurements FOR SELECT TO spotter_app
    USING (tenant_id IN (SELECT c FROM spotter_coach_clients(ARRAY['body']) c));
CREATE POLICY admin_all ON body_measurements TO spotter_admin USING (true) WITH CHECK (true);
GRANT SELECT, INSERT, UPDATE, DELETE ON body_measurements TO spotter_app, spotter_admin;

ALTER TABLE sync_changes DROP CONSTRAINT sync_changes_kind_check;
ALTER TABLE sync_changes ADD CONSTRAINT sync_changes_kind_check CHECK (kind IN ('workout', 'template', 'exercise',
    'program', 'profile', 'follow', 'comment', 'assignment', 'achievement', 'measurement'));

CREATE TRIGGER sync_change AFTER INSERT OR UPDATE ON body_measurements
    FOR EACH ROW EXECUTE FUNCTION spotter_sync_row('measurement', 'measurement_id', 'deleted_at');
