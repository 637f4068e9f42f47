-- Reads that went through whole tables, found by explaining every call of the access matrix under
-- the plans spotterd uses (StaleStatisticsTests):
--
-- 1. A publication's versions were readable when `publication_id IN (SELECT … FROM publications)`:
--    an uncorrelated subquery, which PostgreSQL answers by hashing every publication the caller may
--    read, for each read of a single version. Now a probe of the version's own publication.
-- 2. An export read the comments a coach wrote on clients' workouts with `author_id = $1`, over no
--    index: every comment of every lifter. A coach's comments are indexed by their author (a lifter's
--    own comments, most of the table, are found by their tenant).

DROP POLICY public_read ON publication_versions;
-- A version is readable when its publication is (the subquery applies the publications' policy).
CREATE POLICY public_read ON publication_versions FOR SELECT TO spotter_app
    USING (EXISTS (SELECT FROM publications p WHERE p.publication_id = publication_versions.publication_id));

CREATE INDEX workout_comments_author_idx ON workout_comments (author_id) WHERE author_id <> tenant_id;
