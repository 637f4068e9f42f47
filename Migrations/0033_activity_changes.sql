-- The achievements' reconciler wakes only for the changes that can change a lifter's awards.
--
-- Until now spotterd handed every tenant whose change feed a transaction wrote to the reconciler
-- (`spotter.changed_feeds`, 0020_feed_notify_after_commit.sql), and the reconciler opened a
-- transaction for each to find, in the feed, that nothing it reads had changed: after a body
-- measurement, a template or exercise edit, an assignment, a guided session's recorded set, and
-- after the awards the reconciler itself had just written (one more round after every award).
-- Awards are decided by the live workouts and the profile (time zone, birthday) alone, the same
-- kinds its feed check reads (`PostgresActivityStore`).
--
-- Now the feed notes those tenants also in `spotter.activity_feeds` (transaction-local, space-
-- separated, each once), which spotterd reads beside `spotter.changed_feeds` in COMMIT's round
-- trip: Watch still hears of every change, the reconciler only of these.

CREATE OR REPLACE FUNCTION spotter_record_change(tenant uuid, object_kind text, object uuid, is_deleted boolean)
RETURNS void
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
DECLARE
    next bigint;
    changed text := coalesce(current_setting('spotter.changed_feeds', true), '');
    activity text;
BEGIN
    -- The row lock taken here is held until the transaction ends: see 0009_sync.sql.
    INSERT INTO sync_counters AS c (tenant_id, last_seq) VALUES (tenant, 1)
    ON CONFLICT (tenant_id) DO UPDATE SET last_seq = c.last_seq + 1
    RETURNING c.last_seq INTO next;
    INSERT INTO sync_changes AS s (tenant_id, kind, object_id, seq, deleted, changed_at)
    VALUES (tenant, object_kind, object, next, is_deleted, clock_timestamp())
    ON CONFLICT (tenant_id, kind, object_id)
    DO UPDATE SET seq = excluded.seq, deleted = excluded.deleted, changed_at = excluded.changed_at;
    -- Local to the transaction (a rollback forgets them); read by spotterd with COMMIT.
    IF position(tenant::text IN changed) = 0 THEN
        PERFORM set_config('spotter.changed_feeds', ltrim(changed || ' ' || tenant::text), true);
    END IF;
    IF object_kind IN ('workout', 'profile') THEN
        activity := coalesce(current_setting('spotter.activity_feeds', true), '');
        IF position(tenant::text IN activity) = 0 THEN
            PERFORM set_config('spotter.activity_feeds', ltrim(activity || ' ' || tenant::text), true);
        END IF;
    END IF;
END
$$;
