-- A comment on a set follows its exercise when the workout is replaced, or stays on the workout when
-- the set is gone (PostgresWorkoutStore.moveComments). The workout's owner may move a comment on it,
-- never change what it says: UPDATE is granted on the two position columns only (no one edits a
-- comment's text, as 0008 decided). The move reaches devices like an insert.
GRANT UPDATE (exercise_position, set_position) ON workout_comments TO spotter_app;
DROP TRIGGER sync_change ON workout_comments;
CREATE TRIGGER sync_change AFTER INSERT OR UPDATE OR DELETE ON workout_comments
    FOR EACH ROW EXECUTE FUNCTION spotter_sync_row_or_delete('comment', 'comment_id');
