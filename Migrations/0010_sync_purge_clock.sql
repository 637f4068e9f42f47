-- The sync purge takes a retention period instead of a cutoff time.
--
-- `spotter_sync_purge(cutoff)` trusted its caller's clock and any cutoff: a server whose clock ran
-- ahead, or a caller passing a time in the future, made every device start over. The feed's rows
-- are stamped with the database's clock, so the cutoff is now computed from it, and the retention
-- period must be at least one day.

DROP FUNCTION spotter_sync_purge(timestamptz);

CREATE FUNCTION spotter_sync_purge(retention_days integer) RETURNS bigint
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
DECLARE
    cutoff timestamptz;
    purged bigint;
BEGIN
    IF retention_days IS NULL OR retention_days < 1 THEN
        RAISE EXCEPTION 'retention_days must be at least 1, not %', retention_days
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    cutoff := now() - make_interval(days => retention_days);
    WITH gone AS (
        DELETE FROM sync_changes WHERE deleted AND changed_at < cutoff RETURNING tenant_id, seq
    ), highest AS (
        SELECT tenant_id, max(seq) AS seq, count(*) AS n FROM gone GROUP BY tenant_id
    ), raised AS (
        UPDATE sync_counters c SET purged_seq = greatest(c.purged_seq, h.seq)
        FROM highest h WHERE c.tenant_id = h.tenant_id
        RETURNING h.n
    )
    SELECT coalesce(sum(n), 0) INTO purged FROM raised;
    DELETE FROM sync_mutations WHERE applied_at < cutoff;
    RETURN purged;
END
$$;

ALTER FUNCTION spotter_sync_purge(integer) OWNER TO spotter_sync;
REVOKE ALL ON FUNCTION spotter_sync_purge(integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION spotter_sync_purge(integer) TO spotter_app, spotter_admin;
