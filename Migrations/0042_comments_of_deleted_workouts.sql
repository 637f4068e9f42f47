-- A deleted workout is a tombstone row (deleted_at set) for sync, so the foreign key's ON DELETE
-- CASCADE never removed its comments: they stayed in full pulls, pointing at a workout that reads
-- as not found. Deleting a workout now deletes its comments (PostgresWorkoutStore.deleteWorkout);
-- this removes those left behind by earlier deletions. Row-level security is forced on the table,
-- which would hide every row from the schema owner running this, so it is lifted for this one
-- statement, inside the migration's transaction.
ALTER TABLE workout_comments NO FORCE ROW LEVEL SECURITY;
DELETE FROM workout_comments c
USING workouts w
WHERE w.tenant_id = c.tenant_id AND w.workout_id = c.workout_id AND w.deleted_at IS NOT NULL;
ALTER TABLE workout_comments FORCE ROW LEVEL SECURITY;
