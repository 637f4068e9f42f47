-- The change feed's trigger on workouts, the table every logged workout writes, without the
-- generic trigger's costs: `spotter_sync_row` turns the whole new row into jsonb to find its id
-- and deletion column by name, then calls `spotter_record_change`, a second SECURITY DEFINER
-- function (each such call saves and restores search_path). This one reads the columns directly
-- and writes the counter and the feed row itself. Same rows, same lock order, same notification.
-- Measured with the same-SQL proxy: Benchmarks/README.md, "Hot path".

CREATE FUNCTION spotter_sync_workout() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
DECLARE
    next bigint;
BEGIN
    -- The row lock taken here is held until the transaction ends: see 0009_sync.sql.
    INSERT INTO sync_counters AS c (tenant_id, last_seq) VALUES (NEW.tenant_id, 1)
    ON CONFLICT (tenant_id) DO UPDATE SET last_seq = c.last_seq + 1
    RETURNING c.last_seq INTO next;
    INSERT INTO sync_changes AS s (tenant_id, kind, object_id, seq, deleted, changed_at)
    VALUES (NEW.tenant_id, 'workout', NEW.workout_id, next, NEW.deleted_at IS NOT NULL, clock_timestamp())
    ON CONFLICT (tenant_id, kind, object_id)
    DO UPDATE SET seq = excluded.seq, deleted = excluded.deleted, changed_at = excluded.changed_at;
    PERFORM pg_notify('spotter_sync', NEW.tenant_id::text);
    RETURN NULL;
END
$$;

ALTER FUNCTION spotter_sync_workout() OWNER TO spotter_sync;
REVOKE ALL ON FUNCTION spotter_sync_workout() FROM PUBLIC;

DROP TRIGGER sync_change ON workouts;
CREATE TRIGGER sync_change AFTER INSERT OR UPDATE ON workouts
    FOR EACH ROW EXECUTE FUNCTION spotter_sync_workout();
