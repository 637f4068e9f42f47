-- Coaching: links between a lifter and a coach with the scopes the lifter grants, invite codes, the
-- lifter's access log, programs, assignments from a coach, following a program, and comments.
--
-- Access is enforced twice. The service checks links and scopes; independently, the policies below
-- let a coach's transaction (spotter.tenant_id = the coach) read a lifter's rows only while an
-- active link grants the scope that kind of row needs:
--   history  → workouts (names, dates, durations), custom exercise names, the followed program
--   details  → workouts, their exercises and sets, custom exercises, comments
--   progress → workouts and sets (the e1RM series, records and statistics are computed from them)
--   body     → body metrics (no table yet)
-- The policies read `coach_links` through `coach_links_coach_idx`; the subquery does not depend on
-- the row, so PostgreSQL runs it once per statement (a hashed SubPlan), not per row.

CREATE TABLE coach_links (
    tenant_id     uuid NOT NULL REFERENCES tenants (tenant_id) ON DELETE CASCADE, -- the lifter
    link_id       uuid NOT NULL,
    coach_id      uuid NOT NULL REFERENCES tenants (tenant_id) ON DELETE CASCADE,
    status        text NOT NULL CHECK (status IN ('pending', 'active', 'declined', 'ended')),
    requested_by  text NOT NULL CHECK (requested_by IN ('lifter', 'coach')),
    scopes        text[] NOT NULL DEFAULT '{}'
        CHECK (scopes <@ ARRAY['history', 'details', 'progress', 'body']::text[]),
    created_at    timestamptz NOT NULL,
    responded_at  timestamptz,
    ended_at      timestamptz,
    ended_by      text CHECK (ended_by IN ('lifter', 'coach')),
    -- When the coach last opened this client: "new PR since the coach last looked".
    coach_seen_at timestamptz,
    updated_at    timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, link_id),
    CHECK (tenant_id <> coach_id)
);
-- One open (pending or active) link per lifter and coach; ended and declined ones stay as history.
CREATE UNIQUE INDEX coach_links_open_key ON coach_links (tenant_id, coach_id) WHERE status IN ('pending', 'active');
-- What every coach-side policy reads: the coach's active clients and their scopes.
CREATE INDEX coach_links_coach_idx ON coach_links (coach_id, status, tenant_id) INCLUDE (scopes);

-- Single-use invite codes a coach hands out; only the SHA-256 of the code is stored.
CREATE TABLE coach_invites (
    tenant_id   uuid NOT NULL REFERENCES tenants (tenant_id) ON DELETE CASCADE, -- the coach
    invite_id   uuid NOT NULL,
    code_hash   bytea NOT NULL UNIQUE,
    note        text NOT NULL DEFAULT '' CHECK (length(note) <= 200),
    created_at  timestamptz NOT NULL,
    expires_at  timestamptz NOT NULL,
    used_at     timestamptz,
    used_by     uuid,
    revoked_at  timestamptz,
    PRIMARY KEY (tenant_id, invite_id)
);

-- One row per coach call that read a lifter's data (not per row read).
CREATE TABLE coach_access_log (
    tenant_id   uuid NOT NULL REFERENCES tenants (tenant_id) ON DELETE CASCADE, -- the lifter
    access_id   bigint GENERATED ALWAYS AS IDENTITY,
    coach_id    uuid NOT NULL,
    accessed_at timestamptz NOT NULL,
    data        text NOT NULL CHECK (data IN ('history', 'details', 'progress', 'statistics', 'body', 'overview')),
    method      text NOT NULL CHECK (length(method) BETWEEN 1 AND 100),
    PRIMARY KEY (tenant_id, access_id)
);
CREATE INDEX coach_access_log_time_idx ON coach_access_log (tenant_id, accessed_at DESC, access_id DESC);

-- A named plan of one or more weeks: for each weekday a template of the same tenant, or rest
-- (no row).
CREATE TABLE programs (
    tenant_id   uuid NOT NULL REFERENCES tenants (tenant_id) ON DELETE CASCADE,
    program_id  uuid NOT NULL,
    name        text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
    notes       text NOT NULL DEFAULT '' CHECK (length(notes) <= 5000),
    weeks       integer NOT NULL CHECK (weeks BETWEEN 1 AND 52),
    version     bigint NOT NULL DEFAULT 1,
    created_at  timestamptz NOT NULL,
    updated_at  timestamptz NOT NULL,
    deleted_at  timestamptz,
    PRIMARY KEY (tenant_id, program_id)
);
CREATE INDEX programs_list_idx ON programs (tenant_id, lower(name), program_id) WHERE deleted_at IS NULL;

CREATE TABLE program_days (
    tenant_id   uuid NOT NULL,
    program_id  uuid NOT NULL,
    week        integer NOT NULL CHECK (week BETWEEN 1 AND 52),
    weekday     integer NOT NULL CHECK (weekday BETWEEN 1 AND 7), -- ISO: 1 = Monday
    template_id uuid NOT NULL,
    PRIMARY KEY (tenant_id, program_id, week, weekday),
    FOREIGN KEY (tenant_id, program_id) REFERENCES programs (tenant_id, program_id) ON DELETE CASCADE,
    -- Templates are only ever soft-deleted; a hard delete is a tenant's erasure, which takes all.
    FOREIGN KEY (tenant_id, template_id) REFERENCES templates (tenant_id, template_id) ON DELETE CASCADE
);

-- A coach's template or program given to a linked client.
CREATE TABLE assignments (
    tenant_id     uuid NOT NULL REFERENCES tenants (tenant_id) ON DELETE CASCADE, -- the coach
    assignment_id uuid NOT NULL,
    lifter_id     uuid NOT NULL REFERENCES tenants (tenant_id) ON DELETE CASCADE,
    template_id   uuid,
    program_id    uuid,
    note          text NOT NULL DEFAULT '' CHECK (length(note) <= 1000),
    created_at    timestamptz NOT NULL,
    removed_at    timestamptz,
    PRIMARY KEY (tenant_id, assignment_id),
    CHECK ((template_id IS NULL) <> (program_id IS NULL)),
    FOREIGN KEY (tenant_id, template_id) REFERENCES templates (tenant_id, template_id) ON DELETE CASCADE,
    FOREIGN KEY (tenant_id, program_id) REFERENCES programs (tenant_id, program_id) ON DELETE CASCADE
);
CREATE INDEX assignments_lifter_idx ON assignments (lifter_id, tenant_id) WHERE removed_at IS NULL;
CREATE UNIQUE INDEX assignments_open_key ON assignments (tenant_id, lifter_id, coalesce(template_id, program_id))
    WHERE removed_at IS NULL;

-- The program a lifter follows (their own or an assigned one), from a start date.
CREATE TABLE program_follows (
    tenant_id         uuid PRIMARY KEY REFERENCES tenants (tenant_id) ON DELETE CASCADE, -- the lifter
    program_tenant_id uuid NOT NULL,
    program_id        uuid NOT NULL,
    started_on        date NOT NULL,
    created_at        timestamptz NOT NULL
);

-- Comments on a lifter's workout, or on one set of it, by a coach or by the lifter.
CREATE TABLE workout_comments (
    tenant_id         uuid NOT NULL, -- the lifter who owns the workout
    comment_id        uuid NOT NULL,
    workout_id        uuid NOT NULL,
    exercise_position integer,
    set_position      integer,
    author_id         uuid NOT NULL, -- the lifter, or the coach's tenant
    body              text NOT NULL CHECK (length(body) BETWEEN 1 AND 2000),
    created_at        timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, comment_id),
    FOREIGN KEY (tenant_id, workout_id) REFERENCES workouts (tenant_id, workout_id) ON DELETE CASCADE,
    CHECK ((exercise_position IS NULL) = (set_position IS NULL))
);
CREATE INDEX workout_comments_thread_idx ON workout_comments (tenant_id, workout_id, created_at, comment_id);

DO $$
DECLARE
    t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['coach_links', 'coach_invites', 'coach_access_log', 'programs', 'program_days',
        'assignments', 'program_follows', 'workout_comments']
    LOOP
        EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
        EXECUTE format('ALTER TABLE %I FORCE ROW LEVEL SECURITY', t);
        EXECUTE format('CREATE POLICY admin_all ON %I TO spotter_admin USING (true) WITH CHECK (true)', t);
        EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON %I TO spotter_admin', t);
    END LOOP;
    FOREACH t IN ARRAY ARRAY['coach_invites', 'programs', 'program_days', 'assignments', 'program_follows',
        'workout_comments']
    LOOP
        EXECUTE format(
            'CREATE POLICY tenant_isolation ON %I TO spotter_app '
            'USING (tenant_id = spotter_current_tenant()) WITH CHECK (tenant_id = spotter_current_tenant())', t);
        EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON %I TO spotter_app', t);
    END LOOP;
END
$$;

-- Links: both sides see and update theirs; each side may only open a pending request, and
-- `coach_links_guard` decides which changes each side may make.
CREATE POLICY party_read ON coach_links FOR SELECT TO spotter_app
    USING (tenant_id = spotter_current_tenant() OR coach_id = spotter_current_tenant());
CREATE POLICY party_update ON coach_links FOR UPDATE TO spotter_app
    USING (tenant_id = spotter_current_tenant() OR coach_id = spotter_current_tenant())
    WITH CHECK (tenant_id = spotter_current_tenant() OR coach_id = spotter_current_tenant());
CREATE POLICY lifter_request ON coach_links FOR INSERT TO spotter_app
    WITH CHECK (tenant_id = spotter_current_tenant() AND status = 'pending' AND requested_by = 'lifter');
CREATE POLICY coach_invite ON coach_links FOR INSERT TO spotter_app
    WITH CHECK (coach_id = spotter_current_tenant() AND status = 'pending' AND requested_by = 'coach'
                AND scopes = '{}');
GRANT SELECT, INSERT, UPDATE ON coach_links TO spotter_app;

CREATE FUNCTION coach_links_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    actor uuid := spotter_current_tenant();
    side text;
BEGIN
    IF actor IS NULL OR current_user::text = 'spotter_auth' THEN
        RETURN NEW; -- spotterctl and the invite redemption function
    END IF;
    side := CASE actor WHEN OLD.tenant_id THEN 'lifter' WHEN OLD.coach_id THEN 'coach' END;
    IF NEW.tenant_id <> OLD.tenant_id OR NEW.coach_id <> OLD.coach_id OR NEW.link_id <> OLD.link_id
        OR NEW.requested_by <> OLD.requested_by OR NEW.created_at <> OLD.created_at THEN
        RAISE EXCEPTION 'a link''s parties cannot change' USING ERRCODE = '42501';
    END IF;
    IF side = 'coach' AND NEW.scopes <> OLD.scopes THEN
        RAISE EXCEPTION 'only the lifter grants scopes' USING ERRCODE = '42501';
    END IF;
    IF side = 'lifter' AND NEW.coach_seen_at IS DISTINCT FROM OLD.coach_seen_at THEN
        RAISE EXCEPTION 'only the coach marks a client seen' USING ERRCODE = '42501';
    END IF;
    IF NEW.status <> OLD.status AND NOT (
        (OLD.status = 'pending' AND NEW.status IN ('active', 'declined') AND side <> OLD.requested_by)
        OR (OLD.status = 'pending' AND NEW.status = 'ended' AND side = OLD.requested_by)
        OR (OLD.status = 'active' AND NEW.status = 'ended')
    ) THEN
        RAISE EXCEPTION 'the % cannot change a % link to %', side, OLD.status, NEW.status USING ERRCODE = '42501';
    END IF;
    IF OLD.status IN ('declined', 'ended') AND NEW IS DISTINCT FROM OLD THEN
        RAISE EXCEPTION 'a % link cannot change', OLD.status USING ERRCODE = '42501';
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER coach_links_guard BEFORE UPDATE ON coach_links FOR EACH ROW EXECUTE FUNCTION coach_links_guard();

-- The acting coach's active clients that granted any of `scopes` (every active client for NULL):
-- what each coach-side policy below asks. A plain SQL function, so the planner inlines it into the
-- policy and reads `coach_links_coach_idx` once per statement (a hashed subplan), not per row.
CREATE FUNCTION spotter_coach_clients(scopes text[]) RETURNS SETOF uuid
LANGUAGE sql STABLE
AS $$
    SELECT l.tenant_id FROM coach_links l
    WHERE l.coach_id = spotter_current_tenant() AND l.status = 'active' AND ($1 IS NULL OR l.scopes && $1)
$$;

-- A coach and a linked lifter (any status) see each other's display name and time zone.
CREATE POLICY linked_read ON tenants FOR SELECT TO spotter_app
    USING (tenant_id IN (SELECT l.tenant_id FROM coach_links l WHERE l.coach_id = spotter_current_tenant())
        OR tenant_id IN (SELECT l.coach_id FROM coach_links l WHERE l.tenant_id = spotter_current_tenant()));

-- The coach's reads of a client's training data, by scope.
CREATE POLICY coach_read ON workouts FOR SELECT TO spotter_app
    USING (tenant_id IN (SELECT c FROM spotter_coach_clients(ARRAY['history', 'details', 'progress']) c));
CREATE POLICY coach_read ON exercises FOR SELECT TO spotter_app
    USING (tenant_id IN (SELECT c FROM spotter_coach_clients(ARRAY['history', 'details', 'progress']) c));
CREATE POLICY coach_read ON workout_exercises FOR SELECT TO spotter_app
    USING (tenant_id IN (SELECT c FROM spotter_coach_clients(ARRAY['details']) c));
CREATE POLICY coach_read ON workout_sets FOR SELECT TO spotter_app
    USING (tenant_id IN (SELECT c FROM spotter_coach_clients(ARRAY['details', 'progress']) c));
-- A coach sees the lifter's comments and their own, not another coach's advice to the same lifter.
CREATE POLICY coach_read ON workout_comments FOR SELECT TO spotter_app
    USING (tenant_id IN (SELECT c FROM spotter_coach_clients(ARRAY['details']) c)
        AND author_id IN (tenant_id, spotter_current_tenant()));
CREATE POLICY coach_read ON program_follows FOR SELECT TO spotter_app
    USING (tenant_id IN (SELECT c FROM spotter_coach_clients(ARRAY['history', 'details']) c));
CREATE POLICY coach_read ON programs FOR SELECT TO spotter_app
    USING (tenant_id IN (SELECT c FROM spotter_coach_clients(ARRAY['history', 'details']) c));
CREATE POLICY coach_read ON program_days FOR SELECT TO spotter_app
    USING (tenant_id IN (SELECT c FROM spotter_coach_clients(ARRAY['history', 'details']) c));

-- Whoever writes a comment is its author: a lifter cannot post in a coach's name, nor a coach in
-- anyone else's; and no one edits a comment afterwards (it is deleted and written again).
CREATE POLICY own_name ON workout_comments AS RESTRICTIVE FOR INSERT TO spotter_app
    WITH CHECK (author_id = spotter_current_tenant());
REVOKE UPDATE ON workout_comments FROM spotter_app;
-- A coach comments (and deletes their own comments) only with the details scope.
CREATE POLICY coach_comment ON workout_comments FOR INSERT TO spotter_app
    WITH CHECK (author_id = spotter_current_tenant()
        AND tenant_id IN (SELECT c FROM spotter_coach_clients(ARRAY['details']) c));
CREATE POLICY coach_uncomment ON workout_comments FOR DELETE TO spotter_app
    USING (author_id = spotter_current_tenant()
        AND tenant_id IN (SELECT c FROM spotter_coach_clients(ARRAY['details']) c));

-- The access log: the coach writes a row when reading a linked client; only the lifter reads it.
CREATE POLICY lifter_read ON coach_access_log FOR SELECT TO spotter_app
    USING (tenant_id = spotter_current_tenant());
CREATE POLICY coach_write ON coach_access_log FOR INSERT TO spotter_app
    WITH CHECK (coach_id = spotter_current_tenant()
        AND tenant_id IN (SELECT c FROM spotter_coach_clients(NULL) c));
GRANT SELECT, INSERT ON coach_access_log TO spotter_app;

-- Assignments: the coach writes them only for an active client; the lifter sees those of coaches
-- they are actively linked with, and reads the templates and programs they name.
CREATE POLICY active_client ON assignments AS RESTRICTIVE FOR INSERT TO spotter_app
    WITH CHECK (lifter_id IN (SELECT c FROM spotter_coach_clients(NULL) c));
CREATE POLICY lifter_read ON assignments FOR SELECT TO spotter_app
    USING (lifter_id = spotter_current_tenant() AND removed_at IS NULL
        AND tenant_id IN (SELECT l.coach_id FROM coach_links l WHERE l.tenant_id = spotter_current_tenant()
            AND l.status = 'active'));
CREATE POLICY assigned_read ON programs FOR SELECT TO spotter_app
    USING (EXISTS (SELECT FROM assignments a WHERE a.tenant_id = programs.tenant_id
        AND a.program_id = programs.program_id AND a.lifter_id = spotter_current_tenant()));
CREATE POLICY assigned_read ON program_days FOR SELECT TO spotter_app
    USING (EXISTS (SELECT FROM assignments a WHERE a.tenant_id = program_days.tenant_id
        AND a.program_id = program_days.program_id AND a.lifter_id = spotter_current_tenant()));
CREATE POLICY assigned_read ON templates FOR SELECT TO spotter_app
    USING (EXISTS (SELECT FROM assignments a WHERE a.tenant_id = templates.tenant_id
        AND a.lifter_id = spotter_current_tenant()
        AND (a.template_id = templates.template_id OR EXISTS (
            SELECT FROM program_days d WHERE d.tenant_id = a.tenant_id AND d.program_id = a.program_id
                AND d.template_id = templates.template_id))));
CREATE POLICY assigned_read ON template_items FOR SELECT TO spotter_app
    USING (EXISTS (SELECT FROM templates t WHERE t.tenant_id = template_items.tenant_id
        AND t.template_id = template_items.template_id));

-- Lookups across tenants before a link exists, owned by spotter_auth like the sign-in lookups.
CREATE POLICY link_lookup ON coach_invites TO spotter_auth USING (true) WITH CHECK (true);
CREATE POLICY link_lookup ON coach_links TO spotter_auth USING (true) WITH CHECK (true);
GRANT SELECT, UPDATE ON coach_invites TO spotter_auth;
GRANT SELECT, INSERT ON coach_links TO spotter_auth;

-- A live account by username: its tenant and kind.
CREATE FUNCTION spotter_tenant_for_username(name text) RETURNS TABLE (tenant_id uuid, kind text)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
    SELECT a.tenant_id, t.kind FROM accounts a JOIN tenants t ON t.tenant_id = a.tenant_id
    WHERE lower(a.username) = lower(name) AND a.status = 'active'
$$;

-- A coach's tier and number of active clients, serialized per coach for the rest of the
-- transaction so two acceptances cannot both take the last place.
CREATE FUNCTION spotter_coach_capacity(coach uuid)
RETURNS TABLE (kind text, tier text, tier_expires_at timestamptz, active_clients bigint)
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
BEGIN
    PERFORM pg_advisory_xact_lock(hashtextextended('spotter.coach:' || coach::text, 0));
    RETURN QUERY
    SELECT t.kind, t.tier, t.tier_expires_at,
           (SELECT count(*) FROM coach_links l WHERE l.coach_id = coach AND l.status = 'active')
    FROM tenants t WHERE t.tenant_id = coach;
END
$$;

-- Redeems an unused, unexpired invite code for the signed-in lifter (the transaction's tenant; the
-- `lifter` argument must name it, so no caller can link someone else): marks it used and opens an
-- active link with `granted` scopes. Returns the coach's tenant, or nothing when the code is not
-- redeemable.
CREATE FUNCTION spotter_redeem_invite(hash bytea, lifter uuid, granted text[], link uuid, as_of timestamptz)
RETURNS uuid
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
DECLARE
    coach uuid;
BEGIN
    IF lifter IS DISTINCT FROM spotter_current_tenant()
        OR NOT EXISTS (SELECT FROM tenants t WHERE t.tenant_id = lifter AND t.kind = 'lifter') THEN
        RAISE EXCEPTION 'an invite is redeemed by the signed-in lifter only' USING ERRCODE = '42501';
    END IF;
    UPDATE coach_invites SET used_at = as_of, used_by = lifter
    WHERE code_hash = hash AND used_at IS NULL AND revoked_at IS NULL AND expires_at > as_of
    RETURNING tenant_id INTO coach;
    IF coach IS NULL THEN
        RETURN NULL;
    END IF;
    INSERT INTO coach_links (tenant_id, link_id, coach_id, status, requested_by, scopes, created_at, responded_at,
                             updated_at)
    VALUES (lifter, link, coach, 'active', 'coach', granted, as_of, as_of, as_of);
    RETURN coach;
END
$$;

-- The coach of an invite code that could still be redeemed (for the capacity check first).
CREATE FUNCTION spotter_invite_coach(hash bytea, as_of timestamptz) RETURNS uuid
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
    SELECT tenant_id FROM coach_invites
    WHERE code_hash = hash AND used_at IS NULL AND revoked_at IS NULL AND expires_at > as_of
$$;

DO $$
DECLARE
    f text;
BEGIN
    FOREACH f IN ARRAY ARRAY['spotter_tenant_for_username(text)', 'spotter_coach_capacity(uuid)',
        'spotter_redeem_invite(bytea, uuid, text[], uuid, timestamptz)', 'spotter_invite_coach(bytea, timestamptz)']
    LOOP
        EXECUTE format('ALTER FUNCTION %s OWNER TO spotter_auth', f);
        EXECUTE format('REVOKE ALL ON FUNCTION %s FROM PUBLIC', f);
        EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO spotter_app', f);
    END LOOP;
END
$$;
