-- One lock order for the sync feed counters. A change to a template, a program or a display name
-- also writes the feeds of the tenants that show it (assigned and following lifters, the lifters
-- a coach commented for), and each feed write holds that tenant's `sync_counters` row until the
-- transaction ends. Taken one statement at a time, two coaches sharing two clients could take
-- them in opposite orders and deadlock (40P01, retried by the client).
--
-- Now a transaction that can write other tenants' feeds first calls `spotter_lock_feeds()`, which
-- takes, in one statement and in tenant id order, the counters of every tenant it could write:
-- its own and those of everyone it has ever been linked with (what the dependents triggers can
-- reach). Later writes find their locks already held, so two such transactions wait for each
-- other instead of deadlocking. A transaction that writes only its own feed (a lifter logging a
-- workout) takes one counter and needs no more.

CREATE FUNCTION spotter_lock_feeds() RETURNS void
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
DECLARE
    me uuid := spotter_current_tenant();
BEGIN
    IF me IS NULL THEN
        RETURN;
    END IF;
    -- Counters are made on a tenant's first change; make the missing ones so every row can be locked.
    INSERT INTO sync_counters (tenant_id, last_seq)
    SELECT t.tenant_id, 0 FROM tenants t
    WHERE t.tenant_id = me
       OR t.tenant_id IN (SELECT l.tenant_id FROM coach_links l WHERE l.coach_id = me)
       OR t.tenant_id IN (SELECT l.coach_id FROM coach_links l WHERE l.tenant_id = me)
    ORDER BY t.tenant_id
    ON CONFLICT (tenant_id) DO NOTHING;
    -- ORDER BY comes before the lock: the rows are locked in this order.
    PERFORM FROM sync_counters c
    WHERE c.tenant_id = me
       OR c.tenant_id IN (SELECT l.tenant_id FROM coach_links l WHERE l.coach_id = me)
       OR c.tenant_id IN (SELECT l.coach_id FROM coach_links l WHERE l.tenant_id = me)
    ORDER BY c.tenant_id
    FOR UPDATE;
END
$$;

ALTER FUNCTION spotter_lock_feeds() OWNER TO spotter_sync;
REVOKE ALL ON FUNCTION spotter_lock_feeds() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION spotter_lock_feeds() TO spotter_app;
