-- Activity: the lifter's achievements (milestones, streaks, weekly frequency, trophies and dated
-- challenges), a birthday for the Birthday trophy, and the challenges administrators create.
--
-- Achievements are computed from the history (see SpotterCore/Activity/AchievementRules.swift):
-- the rules are pure functions of the lifter's live workouts, time zone and birthday, so logging,
-- back-dating, editing, deleting, a push of old workouts and a time-zone change all give the same
-- answer as a recomputation from scratch. The table below keeps what was last awarded so devices
-- learn of an award (or its withdrawal) through the change feed and Watch: spotterd reconciles it
-- with the computation after each committed change of the lifter's feed, off the call's path.
--
-- achievements  one row per earned achievement: when and by which workout. A withdrawn one is
--               deleted (a tombstone in the feed). Written only by the lifter's own transactions.
-- challenges    dated challenges, created with `spotterctl challenges create`; read by everyone
--               signed in, written only by administrators.

ALTER TABLE tenants
    ADD COLUMN birthday date CONSTRAINT tenants_birthday_range CHECK (birthday BETWEEN '1900-01-01' AND '2100-01-01');

CREATE TABLE challenges (
    challenge_id uuid PRIMARY KEY,
    name         text NOT NULL CHECK (length(name) BETWEEN 1 AND 80),
    description  text NOT NULL CHECK (length(description) <= 500),
    -- Local dates in each lifter's time zone, both included.
    starts_on    date NOT NULL,
    ends_on      date NOT NULL CHECK (ends_on >= starts_on AND ends_on - starts_on <= 366),
    rule         text NOT NULL CHECK (rule IN ('any_workout', 'workouts', 'active_minutes')),
    target       integer NOT NULL CHECK (target BETWEEN 1 AND 100000 AND (rule <> 'any_workout' OR target = 1)),
    created_at   timestamptz NOT NULL,
    created_by   text NOT NULL
);
CREATE INDEX challenges_ends_idx ON challenges (ends_on);

ALTER TABLE challenges ENABLE ROW LEVEL SECURITY;
ALTER TABLE challenges FORCE ROW LEVEL SECURITY;
CREATE POLICY everyone_reads ON challenges FOR SELECT TO spotter_app USING (true);
CREATE POLICY admin_all ON challenges TO spotter_admin USING (true) WITH CHECK (true);
GRANT SELECT ON challenges TO spotter_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON challenges TO spotter_admin;

CREATE TABLE achievements (
    tenant_id      uuid NOT NULL REFERENCES tenants (tenant_id) ON DELETE CASCADE,
    -- Derived from the tenant and the key, so a device can name it before it is earned.
    achievement_id uuid NOT NULL,
    key            text NOT NULL CHECK (length(key) BETWEEN 1 AND 100),
    -- The start of the workout that earned it, and that workout.
    earned_at      timestamptz NOT NULL,
    workout_id     uuid NOT NULL,
    -- When the server first recorded it.
    awarded_at     timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, achievement_id),
    UNIQUE (tenant_id, key)
);

ALTER TABLE achievements ENABLE ROW LEVEL SECURITY;
ALTER TABLE achievements FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON achievements TO spotter_app
    USING (tenant_id = spotter_current_tenant()) WITH CHECK (tenant_id = spotter_current_tenant());
CREATE POLICY admin_all ON achievements TO spotter_admin USING (true) WITH CHECK (true);
GRANT SELECT, INSERT, UPDATE, DELETE ON achievements TO spotter_app, spotter_admin;

ALTER TABLE sync_changes DROP CONSTRAINT sync_changes_kind_check;
ALTER TABLE sync_changes ADD CONSTRAINT sync_changes_kind_check CHECK (kind IN ('workout', 'template', 'exercise',
    'program', 'profile', 'follow', 'comment', 'assignment', 'achievement'));

CREATE TRIGGER sync_change AFTER INSERT OR UPDATE OR DELETE ON achievements
    FOR EACH ROW EXECUTE FUNCTION spotter_sync_row_or_delete('achievement', 'achievement_id');

-- What the achievement rules need of a tenant's profile: its time zone and its birthday's month and
-- day (MM-DD). For the caller itself, or for an active client that granted the caller the progress
-- scope (a coach's view of the client's achievements); no row for anyone else. Row-level security
-- cannot hide the other columns of `tenants`, so a coach reads these two through this function.
CREATE FUNCTION spotter_activity_profile(tenant uuid)
RETURNS TABLE (time_zone text, birthday text)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
    SELECT t.time_zone, to_char(t.birthday, 'MM-DD')
    FROM tenants t
    WHERE t.tenant_id = $1
      AND ($1 = spotter_current_tenant()
           OR EXISTS (SELECT FROM coach_links l
                      WHERE l.coach_id = spotter_current_tenant() AND l.tenant_id = $1 AND l.status = 'active'
                        AND 'progress' = ANY (l.scopes)))
$$;

ALTER FUNCTION spotter_activity_profile(uuid) OWNER TO spotter_auth;
REVOKE ALL ON FUNCTION spotter_activity_profile(uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION spotter_activity_profile(uuid) TO spotter_app, spotter_admin;
