-- A coach's client list is written to each client's access log at most once an hour ("your client
-- overview"): a coach reloading the list a dozen times in a few minutes had filled the lifter's log
-- with a dozen rows saying the same. Every other read stays a row per call.
--
-- The coach may not read the access log (only the lifter may), so the check whether the last hour
-- already holds the row runs in this function, which only writes rows for the calling coach's own
-- active clients, as the `coach_write` policy allows.
CREATE FUNCTION spotter_log_overview(at timestamptz) RETURNS void
LANGUAGE sql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
    INSERT INTO coach_access_log (tenant_id, coach_id, accessed_at, data, method)
    SELECT l.tenant_id, l.coach_id, spotter_log_overview.at, 'overview', 'ListClients'
    FROM coach_links l
    WHERE l.coach_id = spotter_current_tenant() AND l.status = 'active'
      AND NOT EXISTS (
          SELECT 1 FROM coach_access_log a
          WHERE a.tenant_id = l.tenant_id AND a.accessed_at > spotter_log_overview.at - interval '1 hour'
            AND a.coach_id = l.coach_id AND a.method = 'ListClients')
$$;
REVOKE ALL ON FUNCTION spotter_log_overview(timestamptz) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION spotter_log_overview(timestamptz) TO spotter_app;
