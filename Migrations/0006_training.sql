-- The lifter's training data: the built-in exercise catalog, custom exercises, workouts with their
-- exercises and sets, and templates.
--
-- Every tenant-owned row carries what offline sync needs: `version` grows on each change and a
-- deleted row stays as a tombstone with `deleted_at` set (its children are removed). Weights are
-- stored in kilograms as exact numerics; a client's pounds are converted once, on the way in.

-- Read by every tenant; filled by 0007_exercise_catalog.sql. Not tenant data, so no RLS.
CREATE TABLE catalog_exercises (
    exercise_id  uuid PRIMARY KEY,
    name         text NOT NULL UNIQUE,
    category     text NOT NULL CHECK (category IN ('squat', 'hinge', 'lunge', 'push', 'pull', 'carry', 'core', 'isolation')),
    muscle_group text NOT NULL CHECK (muscle_group IN ('chest', 'back', 'shoulders', 'biceps', 'triceps', 'forearms',
        'quadriceps', 'hamstrings', 'glutes', 'calves', 'abs', 'traps', 'lower_back', 'full_body')),
    equipment    text NOT NULL CHECK (equipment IN ('barbell', 'dumbbell', 'machine', 'cable', 'bodyweight', 'kettlebell',
        'band', 'other')),
    instructions text NOT NULL CHECK (length(instructions) BETWEEN 1 AND 300),
    -- The three lifts a free lifter gets progress for.
    big_three    text UNIQUE CHECK (big_three IN ('squat', 'bench_press', 'deadlift'))
);
GRANT SELECT ON catalog_exercises TO spotter_app, spotter_admin;

CREATE TABLE exercises (
    tenant_id    uuid NOT NULL REFERENCES tenants (tenant_id) ON DELETE CASCADE,
    exercise_id  uuid NOT NULL,
    name         text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
    category     text NOT NULL CHECK (category IN ('squat', 'hinge', 'lunge', 'push', 'pull', 'carry', 'core', 'isolation')),
    muscle_group text NOT NULL CHECK (muscle_group IN ('chest', 'back', 'shoulders', 'biceps', 'triceps', 'forearms',
        'quadriceps', 'hamstrings', 'glutes', 'calves', 'abs', 'traps', 'lower_back', 'full_body')),
    equipment    text NOT NULL CHECK (equipment IN ('barbell', 'dumbbell', 'machine', 'cable', 'bodyweight', 'kettlebell',
        'band', 'other')),
    instructions text NOT NULL DEFAULT '' CHECK (length(instructions) <= 300),
    archived_at  timestamptz,
    version      bigint NOT NULL DEFAULT 1,
    created_at   timestamptz NOT NULL,
    updated_at   timestamptz NOT NULL,
    deleted_at   timestamptz,
    PRIMARY KEY (tenant_id, exercise_id),
    -- Catalog ids live in their own range; a custom exercise can never take one.
    CHECK (exercise_id::text NOT LIKE 'c0000000-0000-4000-8000-%')
);
-- A tenant's live custom exercises have distinct names.
CREATE UNIQUE INDEX exercises_name_key ON exercises (tenant_id, lower(name)) WHERE deleted_at IS NULL;

CREATE TABLE templates (
    tenant_id    uuid NOT NULL REFERENCES tenants (tenant_id) ON DELETE CASCADE,
    template_id  uuid NOT NULL,
    name         text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
    notes        text NOT NULL DEFAULT '' CHECK (length(notes) <= 5000),
    archived_at  timestamptz,
    version      bigint NOT NULL DEFAULT 1,
    created_at   timestamptz NOT NULL,
    updated_at   timestamptz NOT NULL,
    deleted_at   timestamptz,
    PRIMARY KEY (tenant_id, template_id)
);
CREATE INDEX templates_list_idx ON templates (tenant_id, lower(name), template_id) WHERE deleted_at IS NULL;

CREATE TABLE template_items (
    tenant_id    uuid NOT NULL,
    template_id  uuid NOT NULL,
    position     integer NOT NULL CHECK (position >= 0),
    exercise_id  uuid NOT NULL,
    target_sets  integer NOT NULL CHECK (target_sets BETWEEN 1 AND 20),
    reps_min     integer NOT NULL CHECK (reps_min BETWEEN 1 AND 100),
    reps_max     integer NOT NULL CHECK (reps_max BETWEEN reps_min AND 100),
    target_rpe   numeric(3, 1) CHECK (target_rpe BETWEEN 1 AND 10),
    rest_seconds integer CHECK (rest_seconds BETWEEN 0 AND 3600),
    notes        text NOT NULL DEFAULT '' CHECK (length(notes) <= 1000),
    PRIMARY KEY (tenant_id, template_id, position),
    FOREIGN KEY (tenant_id, template_id) REFERENCES templates (tenant_id, template_id) ON DELETE CASCADE
);

CREATE TABLE workouts (
    tenant_id        uuid NOT NULL REFERENCES tenants (tenant_id) ON DELETE CASCADE,
    workout_id       uuid NOT NULL,
    name             text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
    started_at       timestamptz NOT NULL,
    duration_seconds integer NOT NULL CHECK (duration_seconds BETWEEN 0 AND 86400),
    notes            text NOT NULL DEFAULT '' CHECK (length(notes) <= 5000),
    template_id      uuid,
    template_version bigint,
    -- Summary kept with the row so a history page reads one table. Warm-up sets are not counted.
    exercise_count   integer NOT NULL,
    set_count        integer NOT NULL,
    rep_count        integer NOT NULL,
    volume_kg        numeric(14, 6) NOT NULL,
    -- SHA-256 of the content first logged under this id: a retried log call compares against it.
    log_fingerprint  bytea NOT NULL,
    version          bigint NOT NULL DEFAULT 1,
    created_at       timestamptz NOT NULL,
    updated_at       timestamptz NOT NULL,
    deleted_at       timestamptz,
    PRIMARY KEY (tenant_id, workout_id)
);
CREATE INDEX workouts_history_idx ON workouts (tenant_id, started_at DESC, workout_id DESC) WHERE deleted_at IS NULL;

CREATE TABLE workout_exercises (
    tenant_id    uuid NOT NULL,
    workout_id   uuid NOT NULL,
    position     integer NOT NULL CHECK (position >= 0),
    exercise_id  uuid NOT NULL,
    notes        text NOT NULL DEFAULT '' CHECK (length(notes) <= 1000),
    PRIMARY KEY (tenant_id, workout_id, position),
    FOREIGN KEY (tenant_id, workout_id) REFERENCES workouts (tenant_id, workout_id) ON DELETE CASCADE
);

CREATE TABLE workout_sets (
    tenant_id         uuid NOT NULL,
    workout_id        uuid NOT NULL,
    exercise_position integer NOT NULL,
    position          integer NOT NULL CHECK (position >= 0),
    exercise_id       uuid NOT NULL,
    -- The workout's start, copied so progress reads one index range per exercise.
    started_at        timestamptz NOT NULL,
    set_type          text NOT NULL CHECK (set_type IN ('warm_up', 'working', 'drop', 'failure')),
    reps              integer NOT NULL CHECK (reps BETWEEN 0 AND 1000),
    weight_kg         numeric(12, 6) CHECK (weight_kg BETWEEN 0 AND 2000),
    rpe               numeric(3, 1) CHECK (rpe BETWEEN 1 AND 10 AND rpe * 2 = trunc(rpe * 2)),
    rest_seconds      integer CHECK (rest_seconds BETWEEN 0 AND 3600),
    note              text NOT NULL DEFAULT '' CHECK (length(note) <= 1000),
    PRIMARY KEY (tenant_id, workout_id, exercise_position, position),
    FOREIGN KEY (tenant_id, workout_id, exercise_position)
        REFERENCES workout_exercises (tenant_id, workout_id, position) ON DELETE CASCADE
);
CREATE INDEX workout_sets_exercise_idx ON workout_sets (tenant_id, exercise_id, started_at DESC);

DO $$
DECLARE
    t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['exercises', 'templates', 'template_items', 'workouts', 'workout_exercises',
        'workout_sets']
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

-- Authentication now also returns the tenant facts most calls need (kind, tier, time zone, unit),
-- so a call costs one lookup, and it writes `last_used_at` only when it is a minute old: a read
-- call no longer turns into a write (and a WAL flush) on every request.
CREATE POLICY auth_lookup ON tenants FOR SELECT TO spotter_auth USING (true);
GRANT SELECT ON tenants TO spotter_auth;

DROP FUNCTION spotter_authenticate(bytea, timestamptz);
-- PL/pgSQL rather than SQL: its statement plans are cached per connection, where a SQL function
-- with CTEs is parsed and planned again on every call (a sixth of the database's CPU per request).
CREATE FUNCTION spotter_authenticate(hash bytea, as_of timestamptz)
RETURNS TABLE (tenant_id uuid, account_id uuid, session_id uuid, kind text, tier text, tier_expires_at timestamptz,
               time_zone text, unit text)
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
#variable_conflict use_column
BEGIN
    RETURN QUERY
    WITH live AS (
        SELECT s.tenant_id, s.account_id, s.session_id, s.last_used_at
        FROM sessions s
        JOIN accounts a ON a.tenant_id = s.tenant_id AND a.account_id = s.account_id
        WHERE s.access_token_hash = hash
          AND s.revoked_at IS NULL
          AND s.access_expires_at > as_of
          AND s.expires_at > as_of
          AND a.status = 'active'
    ), touched AS (
        UPDATE sessions s SET last_used_at = as_of
        FROM live
        WHERE s.tenant_id = live.tenant_id AND s.session_id = live.session_id
          AND live.last_used_at < as_of - interval '1 minute'
    )
    SELECT live.tenant_id, live.account_id, live.session_id, t.kind, t.tier, t.tier_expires_at, t.time_zone, t.unit
    FROM live JOIN tenants t ON t.tenant_id = live.tenant_id;
END
$$;
ALTER FUNCTION spotter_authenticate(bytea, timestamptz) OWNER TO spotter_auth;
REVOKE ALL ON FUNCTION spotter_authenticate(bytea, timestamptz) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION spotter_authenticate(bytea, timestamptz) TO spotter_app;
