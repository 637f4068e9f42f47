-- Erasing a lifter (`spotterctl accounts delete`) deletes the assignments her coaches gave her
-- through the key `assignments.lifter_id` (ON DELETE CASCADE). Its only index was partial (open
-- assignments), which the key's check cannot use, so each erasure read every coach's assignments.
-- `MigratorTests.foreignKeysIndexed` now checks every key for an index.

CREATE INDEX assignments_lifter_key_idx ON assignments (lifter_id);
