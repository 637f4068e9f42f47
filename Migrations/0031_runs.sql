-- Runs (the CityJogger document): a run is a workout of one exercise, Run, whose set carries the
-- run's time and distance, so history, statistics and achievements count it as any workout (its
-- minutes are activity). Beside it, `runs` keeps the footstep samples as the app sent them and the
-- analysis the server derived from them (cadence, pauses, swerves, weaving: SpotterCore's
-- `RunAnalysis`), so a later change of a threshold can analyse old runs again.

ALTER TABLE catalog_exercises DROP CONSTRAINT catalog_exercises_category_check;
ALTER TABLE catalog_exercises ADD CONSTRAINT catalog_exercises_category_check
    CHECK (category IN ('squat', 'hinge', 'lunge', 'push', 'pull', 'carry', 'core', 'isolation', 'cardio'));
ALTER TABLE exercises DROP CONSTRAINT exercises_category_check;
ALTER TABLE exercises ADD CONSTRAINT exercises_category_check
    CHECK (category IN ('squat', 'hinge', 'lunge', 'push', 'pull', 'carry', 'core', 'isolation', 'cardio'));

INSERT INTO catalog_exercises (exercise_id, name, category, muscle_group, equipment, instructions) VALUES
    ('c0000000-0000-4000-8000-000000000200', 'Run', 'cardio', 'full_body', 'bodyweight',
        'Run at a pace you can hold; log it with the footsteps your phone counts to see cadence, pauses and swerves.');

CREATE TABLE runs (
    tenant_id   uuid NOT NULL,
    workout_id  uuid NOT NULL,
    -- One element per footstep, in time order: milliseconds since the run's start, and the
    -- position and compass heading where the device had them (NULL where not).
    offsets_ms  bigint[] NOT NULL,
    latitudes   float8[] NOT NULL,
    longitudes  float8[] NOT NULL,
    headings    float8[] NOT NULL,
    analysis    jsonb NOT NULL,
    PRIMARY KEY (tenant_id, workout_id),
    FOREIGN KEY (tenant_id, workout_id) REFERENCES workouts (tenant_id, workout_id) ON DELETE CASCADE,
    CHECK (cardinality(offsets_ms) BETWEEN 2 AND 100000 AND cardinality(latitudes) = cardinality(offsets_ms)
        AND cardinality(longitudes) = cardinality(offsets_ms) AND cardinality(headings) = cardinality(offsets_ms))
);

ALTER TABLE runs ENABLE ROW LEVEL SECURITY;
ALTER TABLE runs FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON runs TO spotter_app
    USING (tenant_id = spotter_current_tenant()) WITH CHECK (tenant_id = spotter_current_tenant());
-- A run's footsteps are its details: a coach reads them with the details scope, as a workout's sets.
CREATE POLICY coach_read ON runs FOR SELECT TO spotter_app
    USING (tenant_id IN (SELECT c FROM spotter_coach_clients(ARRAY['details']) c));
CREATE POLICY admin_all ON runs TO spotter_admin USING (true) WITH CHECK (true);
GRANT SELECT, INSERT, UPDATE, DELETE ON runs TO spotter_app, spotter_admin;
