-- Same-SQL proxy: the statements spotterd sends for one ListWorkouts call (the first 20-entry
-- page, as spotter-load's `history` scenario). See logworkout.sql.
\set n :client_id % :tenants + 1
SELECT token_hash, tenant_id, clock_timestamp()::text AS now,
       21 AS page_size
FROM bench_clients WHERE n = :n \gset
\startpipeline
BEGIN ISOLATION LEVEL READ COMMITTED;
SELECT tenant_id, account_id, session_id, kind, tier, tier_expires_at, time_zone, unit,
       set_config('spotter.tenant_id', tenant_id::text, true) AS acting_tenant
FROM spotter_authenticate(:token_hash, :now);
\endpipeline
SELECT workout_id, name, started_at, duration_seconds, exercise_count, set_count, rep_count, volume_kg
FROM workouts w
WHERE tenant_id = :tenant_id
  AND deleted_at IS NULL
ORDER BY started_at DESC, workout_id DESC
LIMIT :page_size;
\startpipeline
SELECT coalesce(current_setting('spotter.changed_feeds', true), '') AS feeds,
       coalesce(current_setting('spotter.activity_feeds', true), '') AS activity;
COMMIT;
\endpipeline
