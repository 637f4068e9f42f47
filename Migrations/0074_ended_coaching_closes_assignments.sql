-- Ending a coaching link (either side) takes back what the coach had assigned to that lifter, as
-- Unassign does: `removed_at` is set, so the lifter's devices hear of it (the feed trigger), a
-- followed program is unfollowed (0043), and the coach's list no longer shows it. Before, the
-- lifter stopped seeing the plans but the coach's ListAssignments and client page still listed
-- them, and a new link brought the old plans back, "since" their first day, without the coach
-- assigning them again (and refused assigning them again as already assigned).
CREATE FUNCTION spotter_close_assignments() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
BEGIN
    UPDATE assignments SET removed_at = coalesce(NEW.ended_at, now())
    WHERE tenant_id = NEW.coach_id AND lifter_id = NEW.tenant_id AND removed_at IS NULL;
    RETURN NULL;
END
$$;

-- As 0045's unfollow: the feed triggers' role, allowed to close an assignment and nothing more.
ALTER FUNCTION spotter_close_assignments() OWNER TO spotter_sync;
REVOKE ALL ON FUNCTION spotter_close_assignments() FROM PUBLIC;
CREATE POLICY ended_link ON assignments FOR UPDATE TO spotter_sync USING (true) WITH CHECK (true);
GRANT UPDATE (removed_at) ON assignments TO spotter_sync;

CREATE TRIGGER close_assignments AFTER UPDATE OF status ON coach_links
    FOR EACH ROW WHEN (OLD.status = 'active' AND NEW.status <> 'active')
    EXECUTE FUNCTION spotter_close_assignments();

-- Assignments left open by links that ended before this migration: every open one whose coach and
-- lifter have no active link, or made before the active link began (a link ended and made again).
-- (Migrations run as a superuser or a member of spotter_admin, whose policies see every row: 0045.)
UPDATE assignments a SET removed_at = now()
WHERE a.removed_at IS NULL
  AND NOT EXISTS (SELECT FROM coach_links l
                  WHERE l.tenant_id = a.lifter_id AND l.coach_id = a.tenant_id AND l.status = 'active'
                    AND coalesce(l.responded_at, l.created_at) <= a.created_at);
