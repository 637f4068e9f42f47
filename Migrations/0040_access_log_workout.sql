-- A coach's read of one workout names the workout in the lifter's access log ("your workout
-- “Squat day” of Mon 23 Nov"), where it used to say only "a workout in detail". No foreign key:
-- the log keeps the row when the lifter deletes the workout, and then says so.

ALTER TABLE coach_access_log ADD COLUMN workout_id uuid;
