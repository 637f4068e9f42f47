-- What a reconciliation of a lifter's achievements keeps between rounds moves from
-- `activity_state` (0027) to `activity_kept`, of the same shape, for the rule of 0066: the New PR
-- trophy now counts reps in reserve. During a rolling upgrade (deploy/k8s: the migration job runs
-- while the previous version still serves) a replica of the old version keeps writing
-- `activity_state` by the old rule after 0066 cleared it; a new replica that trusted those rows
-- would keep an old-rule record for every lifter who trains at least weekly. A table of its own,
-- which only this version writes, starts empty, so each lifter's first round finds the first
-- record again from every set.
--
-- `activity_state` stays for those old replicas until they are gone; nothing of this version
-- reads or writes it, and erasure empties it with the tenant (ON DELETE CASCADE).

CREATE TABLE activity_kept (
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

ALTER TABLE activity_kept ENABLE ROW LEVEL SECURITY;
ALTER TABLE activity_kept FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON activity_kept TO spotter_app
    USING (tenant_id = spotter_current_tenant()) WITH CHECK (tenant_id = spotter_current_tenant());
CREATE POLICY admin_all ON activity_kept TO spotter_admin USING (true) WITH CHECK (true);
GRANT SELECT, INSERT, UPDATE, DELETE ON activity_kept TO spotter_app, spotter_admin;
