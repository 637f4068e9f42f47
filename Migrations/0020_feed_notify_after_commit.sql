-- Watch notifications are sent after the change commits, not by the change's own transaction.
--
-- Until now `spotter_record_change` called pg_notify, so every transaction that wrote a feed
-- (every logged workout) queued a notification. PostgreSQL serializes the commits of all
-- transactions that have notified (PreCommit_Notify takes one database-wide lock and holds it
-- through the commit's WAL flush), so concurrent writers of different tenants committed one at a
-- time: in the same-SQL proxy (Benchmarks/README.md, "Hot path"), four clients logging workouts
-- for four lifters ran 569 transactions/s with the notification and 1,573 without it.
--
-- Now the function only notes the tenant in the transaction-local setting `spotter.changed_feeds`
-- (space-separated tenant ids, each once). spotterd reads it in COMMIT's round trip and, once the
-- commit succeeded, sends the notifications in a statement of their own, which holds the lock for
-- microseconds and flushes nothing. A notification is a hint to pull; a device that misses one
-- (a write made without spotterd, say by hand in psql, or a crash between the commit and the
-- notification) still gets the change at its next pull or with the next notification.

CREATE OR REPLACE FUNCTION spotter_record_change(tenant uuid, object_kind text, object uuid, is_deleted boolean)
RETURNS void
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
DECLARE
    next bigint;
    changed text := coalesce(current_setting('spotter.changed_feeds', true), '');
BEGIN
    -- The row lock taken here is held until the transaction ends: see 0009_sync.sql.
    INSERT INTO sync_counters AS c (tenant_id, last_seq) VALUES (tenant, 1)
    ON CONFLICT (tenant_id) DO UPDATE SET last_seq = c.last_seq + 1
    RETURNING c.last_seq INTO next;
    INSERT INTO sync_changes AS s (tenant_id, kind, object_id, seq, deleted, changed_at)
    VALUES (tenant, object_kind, object, next, is_deleted, clock_timestamp())
    ON CONFLICT (tenant_id, kind, object_id)
    DO UPDATE SET seq = excluded.seq, deleted = excluded.deleted, changed_at = excluded.changed_at;
    -- Local to the transaction (a rollback forgets it); read by spotterd with COMMIT.
    IF position(tenant::text IN changed) = 0 THEN
        PERFORM set_config('spotter.changed_feeds', ltrim(changed || ' ' || tenant::text), true);
    END IF;
END
$$;

-- Migration 0019's trigger for workouts wrote the feed itself, to save the generic trigger's jsonb
-- and its nested call; that saving was lost in the noise of every measurement made (see
-- Benchmarks/README.md, "Hot path"), so workouts go back to the generic trigger, which now
-- carries the notification change above with the rest.
DROP TRIGGER sync_change ON workouts;
CREATE TRIGGER sync_change AFTER INSERT OR UPDATE ON workouts
    FOR EACH ROW EXECUTE FUNCTION spotter_sync_row('workout', 'workout_id', 'deleted_at');
DROP FUNCTION spotter_sync_workout();
