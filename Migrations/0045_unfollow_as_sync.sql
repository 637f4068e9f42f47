-- 0043's trigger function ran with the rights of whoever ran the migrations, unlike every other
-- SECURITY DEFINER function here, which belongs to a narrow role. It now belongs to spotter_sync
-- (the role of the feed triggers, which already reads assignments and program_follows), allowed
-- to delete a follow and nothing more; nobody may call it directly.
--
-- (0042 and 0043 lifted FORCE ROW LEVEL SECURITY for their clean-ups. That was not needed: the
-- schema owner runs migrations as a superuser or as a member of spotter_admin, whose policies see
-- every row, as 0018's update of tenants relies on.)
ALTER FUNCTION spotter_unfollow_unassigned() OWNER TO spotter_sync;
REVOKE ALL ON FUNCTION spotter_unfollow_unassigned() FROM PUBLIC;
CREATE POLICY unassigned ON program_follows FOR DELETE TO spotter_sync USING (true);
GRANT DELETE ON program_follows TO spotter_sync;
-- Deleting a follow runs end_publication_follow (0022) as the same role: it deletes the follow of
-- a Discover copy, which a coach's assigned program never is, so no policy lets it see a row.
GRANT SELECT, DELETE ON publication_follows TO spotter_sync;
