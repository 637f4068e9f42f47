-- Guided sessions: a workout being done, kept on the server so a second device of the lifter and a
-- coach with the `details` scope can follow it live. The plan, what was done so far, the timer and
-- the pauses are one document (`state`, written by SpotterCore's `GuidedSession`), changed whole
-- under the row's lock by every call; the status and the times are columns, so the sweeper below
-- can close a session without reading the document.
--
-- At most one session per lifter is open (active or paused). A session whose last activity is
-- 24 hours old is closed as abandoned (`spotter_abandon_stale_sessions`, run by spotterd, and by
-- any call that reads the session first). Completing writes the workout whose id is the session's
-- own, in the same transaction, so a retried or concurrent completion finds it done.

CREATE TABLE guided_sessions (
    tenant_id        uuid NOT NULL REFERENCES tenants (tenant_id) ON DELETE CASCADE,
    session_id       uuid NOT NULL,
    status           text NOT NULL CHECK (status IN ('active', 'paused', 'completed', 'abandoned')),
    started_at       timestamptz NOT NULL,
    last_activity_at timestamptz NOT NULL,
    ended_at         timestamptz,
    state            jsonb NOT NULL,
    version          bigint NOT NULL DEFAULT 1,
    PRIMARY KEY (tenant_id, session_id),
    CHECK ((status IN ('active', 'paused')) = (ended_at IS NULL))
);
CREATE UNIQUE INDEX guided_sessions_one_open ON guided_sessions (tenant_id) WHERE status IN ('active', 'paused');
CREATE INDEX guided_sessions_stale ON guided_sessions (last_activity_at) WHERE status IN ('active', 'paused');
CREATE INDEX guided_sessions_recent ON guided_sessions (tenant_id, started_at DESC);

ALTER TABLE guided_sessions ENABLE ROW LEVEL SECURITY;
ALTER TABLE guided_sessions FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON guided_sessions TO spotter_app
    USING (tenant_id = spotter_current_tenant()) WITH CHECK (tenant_id = spotter_current_tenant());
-- A coach follows a client's session with the details scope (every set, as in a logged workout).
CREATE POLICY coach_read ON guided_sessions FOR SELECT TO spotter_app
    USING (tenant_id IN (SELECT c FROM spotter_coach_clients(ARRAY['details']) c));
CREATE POLICY admin_all ON guided_sessions TO spotter_admin USING (true) WITH CHECK (true);
GRANT SELECT, INSERT, UPDATE, DELETE ON guided_sessions TO spotter_app, spotter_admin;

-- Notes the tenant among the transaction's changed feeds (as `spotter_record_change` does,
-- 0020_feed_notify_after_commit.sql): spotterd then notifies the tenant's watchers after the commit,
-- and WatchSession streams read the session again. Sessions are not in the sync feed (they are live
-- state; the workout a session writes is), so a device's Watch stream sees a change with nothing
-- new to pull. Returns true, to be called from RETURNING.
CREATE FUNCTION spotter_note_session_change(tenant uuid)
RETURNS boolean
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, public
AS $$
DECLARE
    changed text := coalesce(current_setting('spotter.changed_feeds', true), '');
BEGIN
    IF position(tenant::text IN changed) = 0 THEN
        PERFORM set_config('spotter.changed_feeds', ltrim(changed || ' ' || tenant::text), true);
    END IF;
    RETURN true;
END
$$;

-- Closes every open session idle since before `cutoff` as abandoned; returns how many. Called
-- without a tenant by spotterd's sweeper, so it runs as the owner.
CREATE FUNCTION spotter_abandon_stale_sessions(cutoff timestamptz)
RETURNS integer
LANGUAGE sql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
    WITH closed AS (
        UPDATE guided_sessions
        SET status = 'abandoned', ended_at = last_activity_at + interval '24 hours', version = version + 1
        WHERE status IN ('active', 'paused') AND last_activity_at < cutoff - interval '24 hours'
        RETURNING spotter_note_session_change(tenant_id)
    )
    SELECT count(*)::integer FROM closed
$$;
REVOKE ALL ON FUNCTION spotter_abandon_stale_sessions(timestamptz) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION spotter_abandon_stale_sessions(timestamptz) TO spotter_app;
