-- A coach who takes back a program (Unassign, or DeleteProgram, which ends its assignments) also
-- ends the client's following of it. The follow row used to stay: the lifter's GetToday showed no
-- program (it could no longer be read), the coach's client list still counted its planned days, and
-- an assignment of it again brought it back with its old start date, which no synced device heard
-- of. Now the follow is deleted with the last open assignment of that program to that lifter (the
-- follow's own feed trigger sends its deletion); after a new assignment the lifter follows it again.
CREATE FUNCTION spotter_unfollow_unassigned() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
BEGIN
    DELETE FROM program_follows f
    WHERE f.tenant_id = NEW.lifter_id AND f.program_tenant_id = NEW.tenant_id AND f.program_id = NEW.program_id
      AND NOT EXISTS (SELECT FROM assignments a
                      WHERE a.tenant_id = NEW.tenant_id AND a.lifter_id = NEW.lifter_id
                        AND a.program_id = NEW.program_id AND a.removed_at IS NULL);
    RETURN NULL;
END
$$;

CREATE TRIGGER unfollow_unassigned AFTER UPDATE OF removed_at ON assignments
    FOR EACH ROW WHEN (OLD.removed_at IS NULL AND NEW.removed_at IS NOT NULL AND NEW.program_id IS NOT NULL)
    EXECUTE FUNCTION spotter_unfollow_unassigned();

-- Follows left behind by programs taken back before this migration.
ALTER TABLE program_follows NO FORCE ROW LEVEL SECURITY;
DELETE FROM program_follows f
WHERE f.program_tenant_id <> f.tenant_id
  AND EXISTS (SELECT FROM assignments a WHERE a.tenant_id = f.program_tenant_id AND a.lifter_id = f.tenant_id
                                          AND a.program_id = f.program_id)
  AND NOT EXISTS (SELECT FROM assignments a WHERE a.tenant_id = f.program_tenant_id AND a.lifter_id = f.tenant_id
                                              AND a.program_id = f.program_id AND a.removed_at IS NULL);
ALTER TABLE program_follows FORCE ROW LEVEL SECURITY;
