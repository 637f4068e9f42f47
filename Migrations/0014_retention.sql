-- Retention of what would otherwise grow for ever: coaches' access-log rows older than the
-- configured period (a lifter sees a year of who read what, by default), sign-in failure counts of
-- addresses that have been quiet for a day, and two-factor challenges that expired a day ago.
--
-- `spotter_retention` owns the one function that deletes them, across tenants; it can do nothing
-- else. The database's clock decides what is old.

DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'spotter_retention') THEN
        CREATE ROLE spotter_retention NOLOGIN NOSUPERUSER NOBYPASSRLS;
    END IF;
END
$$;

CREATE POLICY retention ON coach_access_log FOR ALL TO spotter_retention USING (true);
CREATE POLICY retention ON mfa_challenges FOR ALL TO spotter_retention USING (true);
GRANT SELECT, DELETE ON coach_access_log, mfa_challenges, sign_in_address_failures TO spotter_retention;

-- Deletes what is older than its retention; returns (access-log rows, addresses, challenges).
CREATE FUNCTION spotter_purge_old(access_log_days integer)
RETURNS TABLE (access_log bigint, addresses bigint, challenges bigint)
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
BEGIN
    IF access_log_days IS NULL OR access_log_days < 1 THEN
        RAISE EXCEPTION 'access_log_days must be at least 1, not %', access_log_days
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    WITH gone AS (
        DELETE FROM coach_access_log WHERE accessed_at < now() - make_interval(days => access_log_days) RETURNING 1
    ) SELECT count(*) INTO access_log FROM gone;
    WITH gone AS (
        DELETE FROM sign_in_address_failures
        WHERE window_start < now() - interval '1 day' AND (blocked_until IS NULL OR blocked_until < now())
        RETURNING 1
    ) SELECT count(*) INTO addresses FROM gone;
    WITH gone AS (
        DELETE FROM mfa_challenges WHERE expires_at < now() - interval '1 day' RETURNING 1
    ) SELECT count(*) INTO challenges FROM gone;
    RETURN NEXT;
END
$$;

ALTER FUNCTION spotter_purge_old(integer) OWNER TO spotter_retention;
REVOKE ALL ON FUNCTION spotter_purge_old(integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION spotter_purge_old(integer) TO spotter_app, spotter_admin;
