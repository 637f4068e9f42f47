-- Same-SQL proxy: the statements spotterd sends for one LogWorkout call (squat and bench press,
-- 5 sets each, as spotter-load's `log` scenario), in order, with the values it sends. Run by
-- Benchmarks/run.sh with pgbench -M prepared against the real schema as spotter_app (see
-- Benchmarks/README.md). SameSQLProxyTests fails when these differ from what spotterd sends.
--
-- The first statement is the proxy's own: it picks the client's signed-in lifter (bench_clients,
-- made by run.sh from the lifters' live sessions; client k always takes lifter k, so, as with
-- spotter-load, the calls in flight are for different lifters and never wait on one another's
-- feed counter row) and makes the per-call values pgbench cannot (a new
-- workout id, the time). pgbench variables cannot be NULL, so the parameters spotterd sends as
-- NULL (no template, no notes-less set's rest) are written NULL.
\set n :client_id % :tenants + 1
SELECT token_hash, tenant_id, gen_random_uuid() AS workout_id,
       clock_timestamp()::text AS now,
       'Squat and bench' AS name, 3600 AS duration, '' AS notes, 2 AS exercise_count, 10 AS set_count,
       50 AS rep_count, '4500.000000' AS volume,
       '\xf27af76738896fe0f59bb76e22ec4d6ab3e4b6d1e165e77402a4d52b1b8749be' AS fingerprint,
       '{c0000000-0000-4000-8000-000000000001,c0000000-0000-4000-8000-000000000002}' AS exercise_ids, '{"",""}' AS exercise_notes,
       '{main,main}' AS exercise_sections, '{0,0}' AS exercise_circuits,
       '{0,0,0,0,0,1,1,1,1,1}' AS set_exercise_positions, '{0,1,2,3,4,0,1,2,3,4}' AS set_positions,
       '{c0000000-0000-4000-8000-000000000001,c0000000-0000-4000-8000-000000000001,c0000000-0000-4000-8000-000000000001,c0000000-0000-4000-8000-000000000001,c0000000-0000-4000-8000-000000000001,c0000000-0000-4000-8000-000000000002,c0000000-0000-4000-8000-000000000002,c0000000-0000-4000-8000-000000000002,c0000000-0000-4000-8000-000000000002,c0000000-0000-4000-8000-000000000002}' AS set_exercise_ids,
       '{working,working,working,working,working,working,working,working,working,working}' AS set_types,
       '{5,5,5,5,5,5,5,5,5,5}' AS set_reps,
       '{100.000000,102.500000,105.000000,107.500000,110.000000,70.000000,72.500000,75.000000,77.500000,80.000000}'
           AS set_weights,
       '{7,7.5,8,8.5,9,7,7.5,8,8.5,9}' AS set_rpes, '{NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL}' AS set_rests,
       '{"","","","","","","","","",""}' AS set_notes,
       '{NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL}' AS set_durations,
       '{NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL}' AS set_distances
FROM bench_clients WHERE n = :n \gset
\startpipeline
BEGIN ISOLATION LEVEL READ COMMITTED;
SELECT tenant_id, account_id, session_id, kind, tier, tier_expires_at, time_zone, unit,
       set_config('spotter.tenant_id', tenant_id::text, true) AS acting_tenant
FROM spotter_authenticate(:token_hash, :now);
\endpipeline
SELECT id, coalesce(c.name, x.name) AS name
FROM unnest(:exercise_ids::uuid[]) AS id
LEFT JOIN catalog_exercises c ON c.exercise_id = id
LEFT JOIN exercises x
    ON x.tenant_id = spotter_current_tenant() AND x.exercise_id = id AND x.deleted_at IS NULL;
WITH w AS (
    INSERT INTO workouts (tenant_id, workout_id, started_at, name, duration_seconds, notes, template_id,
                          template_version, exercise_count, set_count, rep_count, volume_kg,
                          log_fingerprint, created_at, updated_at)
    VALUES (:tenant_id, :workout_id, :now, :name, :duration, :notes, NULL, NULL, :exercise_count, :set_count,
            :rep_count, :volume, :fingerprint, :now, :now)
    ON CONFLICT (tenant_id, workout_id) DO NOTHING
    RETURNING tenant_id, workout_id, started_at
),
e AS (
    INSERT INTO workout_exercises (tenant_id, workout_id, position, exercise_id, notes, section, circuit)
    SELECT w.tenant_id, w.workout_id, t.position - 1, t.exercise_id, t.notes, t.section, t.circuit
    FROM w, unnest(:exercise_ids::uuid[], :exercise_notes::text[], :exercise_sections::text[],
                   :exercise_circuits::int[])
        WITH ORDINALITY AS t(exercise_id, notes, section, circuit, position)
),
s AS (
    INSERT INTO workout_sets (tenant_id, workout_id, exercise_position, position, exercise_id, started_at,
                              set_type, reps, weight_kg, rpe, rest_seconds, note, duration_seconds,
                              distance_m)
    SELECT w.tenant_id, w.workout_id, t.exercise_position, t.position, t.exercise_id, w.started_at,
           t.set_type, t.reps, t.weight_kg, t.rpe, t.rest_seconds, t.note, t.duration_seconds, t.distance_m
    FROM w, unnest(:set_exercise_positions::int[], :set_positions::int[], :set_exercise_ids::uuid[],
                   :set_types::text[], :set_reps::int[], :set_weights::numeric[], :set_rpes::numeric[],
                   :set_rests::int[], :set_notes::text[], :set_durations::int[], :set_distances::int[])
        AS t(exercise_position, position, exercise_id, set_type, reps, weight_kg, rpe, rest_seconds, note,
             duration_seconds, distance_m)
)
SELECT count(*)::int AS inserted FROM w;
\startpipeline
SELECT coalesce(current_setting('spotter.changed_feeds', true), '') AS feeds,
       coalesce(current_setting('spotter.activity_feeds', true), '') AS activity;
COMMIT;
\endpipeline
-- The Watch notification is not the call's: spotterd's WatchNotifier sends those of all calls
-- committed meanwhile in one statement of its own (its cost shows in spotterd's PostgreSQL CPU).
