-- The New PR trophy and a guided session's record flag now estimate a set's one-rep max as
-- progress does by default: Epley of its reps with any in reserve, reps + (10 − RPE), for 1–12
-- reps counted and RPE 6–10 (`RecordSQL.e1rm`). Until now they took Epley of the reps alone, so a
-- set logged at RPE 8 could be a record on the progress chart and not for the trophy, or the
-- other way round.
--
-- What the last reconciliation kept (the first record, found by the old rule) no longer holds:
-- each lifter's next reconciliation finds it again from every set, as after any edit. TRUNCATE,
-- since row-level security (forced on this table) shows the owner no rows to DELETE.
TRUNCATE activity_state;
