-- A later version of a public program, or its unpublishing, reaches the devices of the lifters
-- who follow it: their followed program (sync kind `follow`, which carries the publication's
-- version and any later one) changes with it, so a pull and `Watch` tell them at once.
--
-- Lock order (0017): the followers' feed counters are taken in tenant id order, one statement's
-- cursor; a publishing transaction writes no other feed before, so it cannot hold one counter
-- while waiting for another out of order.

CREATE POLICY sync_trigger ON publication_follows FOR SELECT TO spotter_sync USING (true);
GRANT SELECT ON publication_follows TO spotter_sync;

CREATE FUNCTION spotter_sync_publication_followers() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
DECLARE
    changes refcursor;
BEGIN
    IF NEW.version = OLD.version AND (NEW.unpublished_at IS NULL) = (OLD.unpublished_at IS NULL) THEN
        RETURN NULL;
    END IF;
    OPEN changes FOR
        SELECT f.tenant_id, 'follow' AS kind, f.tenant_id AS object_id
        FROM publication_follows f
        JOIN program_follows p ON p.tenant_id = f.tenant_id AND p.program_id = f.copy_id
        WHERE f.publication_id = NEW.publication_id AND f.kind = 'program'
        ORDER BY f.tenant_id;
    PERFORM spotter_record_changes(changes);
    RETURN NULL;
END
$$;
ALTER FUNCTION spotter_sync_publication_followers() OWNER TO spotter_sync;
REVOKE ALL ON FUNCTION spotter_sync_publication_followers() FROM PUBLIC;

CREATE TRIGGER sync_followers AFTER UPDATE OF version, unpublished_at ON publications
    FOR EACH ROW EXECUTE FUNCTION spotter_sync_publication_followers();
