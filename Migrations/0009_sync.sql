-- Offline-first sync: a change feed per tenant, devices and the mutations they pushed.
--
-- Every change to an object a client app keeps (workouts, templates, custom exercises, programs,
-- the profile, the program followed, comments on the lifter's workouts, and coaches' assignments
-- to the lifter) takes the next number of its tenant's change sequence, in the transaction that
-- makes the change. The number comes from an UPDATE of the tenant's `sync_counters` row, whose
-- row lock is held until that transaction ends: a second writer of the same tenant waits, so
-- numbers are handed out in commit order and a reader that has seen number N has seen every
-- change numbered below N. A pull reads `sync_changes` after its cursor and never skips a change
-- that commits later.
--
-- The numbers are given by triggers, so no store can forget one. The trigger functions run as
-- `spotter_sync`, which may write the feed of any tenant: a coach's assignment or comment lands in
-- the lifter's feed. Nothing else may write the feed; the app only reads its own tenant's.

DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'spotter_sync') THEN
        CREATE ROLE spotter_sync NOLOGIN NOSUPERUSER NOBYPASSRLS;
    END IF;
END
$$;

CREATE TABLE sync_counters (
    tenant_id   uuid PRIMARY KEY REFERENCES tenants (tenant_id) ON DELETE CASCADE,
    -- The last number handed out.
    last_seq    bigint NOT NULL,
    -- Tombstones numbered up to here may have been purged: a cursor below it must start over.
    purged_seq  bigint NOT NULL DEFAULT 0
);

-- One row per object that ever changed: the number of its latest change. An object changed twice
-- between two pulls is sent once, as it is now.
CREATE TABLE sync_changes (
    tenant_id   uuid NOT NULL REFERENCES tenants (tenant_id) ON DELETE CASCADE,
    kind        text NOT NULL CHECK (kind IN ('workout', 'template', 'exercise', 'program', 'profile', 'follow',
        'comment', 'assignment')),
    object_id   uuid NOT NULL,
    seq         bigint NOT NULL,
    -- Deleted by this change. (An object can also vanish from the tenant's view without being
    -- deleted, such as an assignment whose coaching link ended; a pull sends a tombstone then too.)
    deleted     boolean NOT NULL,
    changed_at  timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, kind, object_id)
);
CREATE UNIQUE INDEX sync_changes_seq_key ON sync_changes (tenant_id, seq);
CREATE INDEX sync_changes_purge_idx ON sync_changes (changed_at) WHERE deleted;

-- A client app installation. The server makes the id; pushes name it.
CREATE TABLE sync_devices (
    tenant_id         uuid NOT NULL REFERENCES tenants (tenant_id) ON DELETE CASCADE,
    device_id         uuid NOT NULL,
    label             text NOT NULL DEFAULT '' CHECK (length(label) <= 100),
    -- Mutation ids are 1, 2, 3, … per device; this is the last one applied.
    last_mutation_id  bigint NOT NULL DEFAULT 0,
    created_at        timestamptz NOT NULL,
    last_push_at      timestamptz,
    PRIMARY KEY (tenant_id, device_id)
);

-- What each applied mutation answered, so a push sent again answers the same.
CREATE TABLE sync_mutations (
    tenant_id       uuid NOT NULL,
    device_id       uuid NOT NULL,
    mutation_id     bigint NOT NULL,
    status          text NOT NULL CHECK (status IN ('applied', 'conflict', 'rejected')),
    kind            text NOT NULL,
    object_id       uuid,
    -- applied: the object's version now (0 after a delete); conflict: the server's version.
    version         bigint NOT NULL,
    base_version    bigint NOT NULL,
    -- conflict: the server's object is deleted.
    server_deleted  boolean NOT NULL DEFAULT false,
    -- rejected: the fields and reasons, or a message.
    fields          text[] NOT NULL DEFAULT '{}',
    reasons         text[] NOT NULL DEFAULT '{}',
    message         text NOT NULL DEFAULT '',
    applied_at      timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, device_id, mutation_id),
    FOREIGN KEY (tenant_id, device_id) REFERENCES sync_devices (tenant_id, device_id) ON DELETE CASCADE
);
CREATE INDEX sync_mutations_purge_idx ON sync_mutations (applied_at);

-- Data from before this migration enters the feed once, numbered per tenant in the order it
-- last changed, so a device's first pull holds everything.
WITH existing AS (
    SELECT tenant_id, 'profile' AS kind, tenant_id AS object_id, false AS deleted, updated_at AS changed_at
    FROM tenants
    UNION ALL SELECT tenant_id, 'workout', workout_id, deleted_at IS NOT NULL, updated_at FROM workouts
    UNION ALL SELECT tenant_id, 'template', template_id, deleted_at IS NOT NULL, updated_at FROM templates
    UNION ALL SELECT tenant_id, 'exercise', exercise_id, deleted_at IS NOT NULL, updated_at FROM exercises
    UNION ALL SELECT tenant_id, 'program', program_id, deleted_at IS NOT NULL, updated_at FROM programs
    UNION ALL SELECT tenant_id, 'follow', tenant_id, false, created_at FROM program_follows
    UNION ALL SELECT tenant_id, 'comment', comment_id, false, created_at FROM workout_comments
    UNION ALL SELECT lifter_id, 'assignment', assignment_id, removed_at IS NOT NULL, created_at FROM assignments
)
INSERT INTO sync_changes (tenant_id, kind, object_id, seq, deleted, changed_at)
SELECT tenant_id, kind, object_id, row_number() OVER (PARTITION BY tenant_id ORDER BY changed_at, kind, object_id),
       deleted, changed_at
FROM existing;
INSERT INTO sync_counters (tenant_id, last_seq)
SELECT t.tenant_id, coalesce(max(c.seq), 0) FROM tenants t LEFT JOIN sync_changes c ON c.tenant_id = t.tenant_id
GROUP BY t.tenant_id;

DO $$
DECLARE
    t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['sync_counters', 'sync_changes', 'sync_devices', 'sync_mutations']
    LOOP
        EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
        EXECUTE format('ALTER TABLE %I FORCE ROW LEVEL SECURITY', t);
        EXECUTE format('CREATE POLICY admin_all ON %I TO spotter_admin USING (true) WITH CHECK (true)', t);
        EXECUTE format('GRANT SELECT, DELETE ON %I TO spotter_admin', t);
    END LOOP;
    -- The feed: the app reads its own tenant's; only the triggers (spotter_sync) write it.
    FOREACH t IN ARRAY ARRAY['sync_counters', 'sync_changes']
    LOOP
        EXECUTE format('CREATE POLICY tenant_read ON %I FOR SELECT TO spotter_app '
            'USING (tenant_id = spotter_current_tenant())', t);
        EXECUTE format('CREATE POLICY feed_writer ON %I TO spotter_sync USING (true) WITH CHECK (true)', t);
        EXECUTE format('GRANT SELECT ON %I TO spotter_app', t);
        EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON %I TO spotter_sync', t);
    END LOOP;
    -- Devices and their mutations belong to the tenant.
    FOREACH t IN ARRAY ARRAY['sync_devices', 'sync_mutations']
    LOOP
        EXECUTE format('CREATE POLICY tenant_isolation ON %I TO spotter_app '
            'USING (tenant_id = spotter_current_tenant()) WITH CHECK (tenant_id = spotter_current_tenant())', t);
        EXECUTE format('GRANT SELECT, INSERT, UPDATE ON %I TO spotter_app', t);
    END LOOP;
    CREATE POLICY purger ON sync_mutations TO spotter_sync USING (true);
    GRANT SELECT, DELETE ON sync_mutations TO spotter_sync;
    -- What the triggers read to find the objects that show another one (a workout shows its
    -- exercises' names, a follow its program, an assignment its template).
    FOREACH t IN ARRAY ARRAY['assignments', 'program_days', 'tenants', 'coach_links', 'program_follows', 'programs',
        'templates', 'template_items', 'workouts', 'workout_exercises', 'workout_comments']
    LOOP
        EXECUTE format('CREATE POLICY sync_trigger ON %I FOR SELECT TO spotter_sync USING (true)', t);
        EXECUTE format('GRANT SELECT ON %I TO spotter_sync', t);
    END LOOP;
END
$$;


-- Gives the object the next number of `tenant`'s sequence and wakes the tenant's watch streams.
-- Called only by the trigger functions below (spotter_app has no EXECUTE on it).
CREATE FUNCTION spotter_record_change(tenant uuid, object_kind text, object uuid, is_deleted boolean)
RETURNS void
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
DECLARE
    next bigint;
BEGIN
    -- The row lock taken here is held until the transaction ends: see the top of this file.
    INSERT INTO sync_counters AS c (tenant_id, last_seq) VALUES (tenant, 1)
    ON CONFLICT (tenant_id) DO UPDATE SET last_seq = c.last_seq + 1
    RETURNING c.last_seq INTO next;
    INSERT INTO sync_changes AS s (tenant_id, kind, object_id, seq, deleted, changed_at)
    VALUES (tenant, object_kind, object, next, is_deleted, clock_timestamp())
    ON CONFLICT (tenant_id, kind, object_id)
    DO UPDATE SET seq = excluded.seq, deleted = excluded.deleted, changed_at = excluded.changed_at;
    -- Delivered at commit, once per transaction and tenant (identical payloads fold into one).
    PERFORM pg_notify('spotter_sync', tenant::text);
END
$$;

-- For tables whose rows are soft-deleted: TG_ARGV = kind, id column, deleted-at column.
CREATE FUNCTION spotter_sync_row() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
DECLARE
    r jsonb := to_jsonb(NEW);
BEGIN
    PERFORM spotter_record_change(NEW.tenant_id, TG_ARGV[0], (r ->> TG_ARGV[1])::uuid,
        TG_ARGV[2] IS NOT NULL AND r ->> TG_ARGV[2] IS NOT NULL);
    RETURN NULL;
END
$$;

-- For tables whose rows are hard-deleted (comments, the program followed): TG_ARGV = kind, id column.
CREATE FUNCTION spotter_sync_row_or_delete() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
DECLARE
    r jsonb;
    tenant uuid;
BEGIN
    IF TG_OP = 'DELETE' THEN r := to_jsonb(OLD); ELSE r := to_jsonb(NEW); END IF;
    tenant := (r ->> 'tenant_id')::uuid;
    -- A tenant's erasure deletes everything; there is no feed left to write.
    IF TG_OP = 'DELETE' AND NOT EXISTS (SELECT FROM tenants WHERE tenant_id = tenant) THEN
        RETURN NULL;
    END IF;
    PERFORM spotter_record_change(tenant, TG_ARGV[0], (r ->> TG_ARGV[1])::uuid, TG_OP = 'DELETE');
    RETURN NULL;
END
$$;

-- A coach's assignment is an object of the lifter's feed. It also changes when the template or
-- program it names changes, and it appears or vanishes with the coaching link.
CREATE FUNCTION spotter_sync_assignment() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        -- Erasing the coach (or the template or program) takes the assignment; erasing the lifter
        -- leaves no feed to write.
        IF EXISTS (SELECT FROM tenants WHERE tenant_id = OLD.lifter_id) THEN
            PERFORM spotter_record_change(OLD.lifter_id, 'assignment', OLD.assignment_id, true);
        END IF;
    ELSE
        PERFORM spotter_record_change(NEW.lifter_id, 'assignment', NEW.assignment_id, NEW.removed_at IS NOT NULL);
    END IF;
    RETURN NULL;
END
$$;

-- Objects that show another one change with it. Each runs after the row's own `sync_change`
-- trigger (triggers fire in name order), so a statement takes its own tenant's counter first and
-- other tenants' in id order: one coach's concurrent edits wait for each other. Across
-- statements the order can still cross (two coaches sharing two clients, each editing two
-- assigned templates in one transaction); PostgreSQL then cancels one transaction with a
-- deadlock error, which the API answers as UNAVAILABLE: try again (a push is idempotent).
CREATE FUNCTION spotter_record_changes(changes refcursor) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
DECLARE
    d record;
BEGIN
    LOOP
        FETCH changes INTO d;
        EXIT WHEN NOT FOUND;
        PERFORM spotter_record_change(d.tenant_id, d.kind, d.object_id, false);
    END LOOP;
    CLOSE changes;
END
$$;

-- A template: the tenant's programs that use it, the follows of those programs, and coaches'
-- assignments naming it (directly or through a program) while the link is active.
CREATE FUNCTION spotter_sync_template_dependents() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
DECLARE
    changes refcursor;
BEGIN
    OPEN changes FOR
        WITH programs_using AS (
            SELECT DISTINCT d.program_id FROM program_days d
            WHERE d.tenant_id = NEW.tenant_id AND d.template_id = NEW.template_id
        )
        SELECT * FROM (
            SELECT NEW.tenant_id AS tenant_id, 'program' AS kind, p.program_id AS object_id
            FROM programs p JOIN programs_using u ON u.program_id = p.program_id
            WHERE p.tenant_id = NEW.tenant_id AND p.deleted_at IS NULL
            UNION
            SELECT f.tenant_id, 'follow', f.tenant_id FROM program_follows f JOIN programs_using u
                ON u.program_id = f.program_id
            WHERE f.program_tenant_id = NEW.tenant_id
            UNION
            SELECT a.lifter_id, 'assignment', a.assignment_id FROM assignments a
            JOIN coach_links l ON l.tenant_id = a.lifter_id AND l.coach_id = a.tenant_id AND l.status = 'active'
            WHERE a.tenant_id = NEW.tenant_id AND a.removed_at IS NULL
              AND (a.template_id = NEW.template_id OR a.program_id IN (SELECT program_id FROM programs_using))
        ) x
        ORDER BY x.tenant_id <> NEW.tenant_id, x.tenant_id, x.kind, x.object_id;
    PERFORM spotter_record_changes(changes);
    RETURN NULL;
END
$$;

-- A program: its follows and the active assignments naming it.
CREATE FUNCTION spotter_sync_program_dependents() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
DECLARE
    changes refcursor;
BEGIN
    OPEN changes FOR
        SELECT * FROM (
            SELECT f.tenant_id, 'follow' AS kind, f.tenant_id AS object_id FROM program_follows f
            WHERE f.program_tenant_id = NEW.tenant_id AND f.program_id = NEW.program_id
            UNION
            SELECT a.lifter_id, 'assignment', a.assignment_id FROM assignments a
            JOIN coach_links l ON l.tenant_id = a.lifter_id AND l.coach_id = a.tenant_id AND l.status = 'active'
            WHERE a.tenant_id = NEW.tenant_id AND a.program_id = NEW.program_id AND a.removed_at IS NULL
        ) x
        ORDER BY x.tenant_id <> NEW.tenant_id, x.tenant_id, x.kind, x.object_id;
    PERFORM spotter_record_changes(changes);
    RETURN NULL;
END
$$;

-- A tenant's display name: the comments it wrote (in each lifter's feed) and, for a coach, its
-- assignments to actively linked lifters show it.
CREATE FUNCTION spotter_sync_name_dependents() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
DECLARE
    changes refcursor;
BEGIN
    OPEN changes FOR
        SELECT * FROM (
            SELECT c.tenant_id, 'comment' AS kind, c.comment_id AS object_id FROM workout_comments c
            WHERE c.author_id = NEW.tenant_id
            UNION
            SELECT a.lifter_id, 'assignment', a.assignment_id FROM assignments a
            JOIN coach_links l ON l.tenant_id = a.lifter_id AND l.coach_id = a.tenant_id AND l.status = 'active'
            WHERE a.tenant_id = NEW.tenant_id AND a.removed_at IS NULL
        ) x
        ORDER BY x.tenant_id <> NEW.tenant_id, x.tenant_id, x.kind, x.object_id;
    PERFORM spotter_record_changes(changes);
    RETURN NULL;
END
$$;

-- A renamed custom exercise: the tenant's live templates and workouts show its name.
CREATE FUNCTION spotter_sync_exercise_dependents() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
DECLARE
    changes refcursor;
BEGIN
    OPEN changes FOR
        SELECT * FROM (
            SELECT t.tenant_id, 'template' AS kind, t.template_id AS object_id FROM templates t
            WHERE t.tenant_id = NEW.tenant_id AND t.deleted_at IS NULL AND EXISTS (
                SELECT FROM template_items i WHERE i.tenant_id = t.tenant_id AND i.template_id = t.template_id
                    AND i.exercise_id = NEW.exercise_id)
            UNION
            SELECT w.tenant_id, 'workout', w.workout_id FROM workouts w
            WHERE w.tenant_id = NEW.tenant_id AND w.deleted_at IS NULL AND EXISTS (
                SELECT FROM workout_exercises e WHERE e.tenant_id = w.tenant_id AND e.workout_id = w.workout_id
                    AND e.exercise_id = NEW.exercise_id)
        ) x
        ORDER BY x.kind, x.object_id;
    PERFORM spotter_record_changes(changes);
    RETURN NULL;
END
$$;

CREATE FUNCTION spotter_sync_link() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
DECLARE
    a record;
BEGIN
    FOR a IN
        SELECT x.assignment_id FROM assignments x
        WHERE x.tenant_id = NEW.coach_id AND x.lifter_id = NEW.tenant_id AND x.removed_at IS NULL
        ORDER BY x.assignment_id
    LOOP
        PERFORM spotter_record_change(NEW.tenant_id, 'assignment', a.assignment_id, NEW.status <> 'active');
    END LOOP;
    RETURN NULL;
END
$$;

CREATE TRIGGER sync_change AFTER INSERT OR UPDATE ON workouts
    FOR EACH ROW EXECUTE FUNCTION spotter_sync_row('workout', 'workout_id', 'deleted_at');
CREATE TRIGGER sync_change AFTER INSERT OR UPDATE ON templates
    FOR EACH ROW EXECUTE FUNCTION spotter_sync_row('template', 'template_id', 'deleted_at');
CREATE TRIGGER sync_change AFTER INSERT OR UPDATE ON exercises
    FOR EACH ROW EXECUTE FUNCTION spotter_sync_row('exercise', 'exercise_id', 'deleted_at');
CREATE TRIGGER sync_change AFTER INSERT OR UPDATE ON programs
    FOR EACH ROW EXECUTE FUNCTION spotter_sync_row('program', 'program_id', 'deleted_at');
CREATE TRIGGER sync_change AFTER INSERT OR UPDATE ON tenants
    FOR EACH ROW EXECUTE FUNCTION spotter_sync_row('profile', 'tenant_id', NULL);
-- The profile also shows the account's e-mail, its verification and the username.
CREATE TRIGGER sync_change AFTER UPDATE ON accounts
    FOR EACH ROW WHEN (OLD.email IS DISTINCT FROM NEW.email OR OLD.username IS DISTINCT FROM NEW.username
        OR OLD.email_verified_at IS DISTINCT FROM NEW.email_verified_at OR OLD.status IS DISTINCT FROM NEW.status)
    EXECUTE FUNCTION spotter_sync_row('profile', 'tenant_id', NULL);
CREATE TRIGGER sync_change AFTER INSERT OR UPDATE OR DELETE ON program_follows
    FOR EACH ROW EXECUTE FUNCTION spotter_sync_row_or_delete('follow', 'tenant_id');
CREATE TRIGGER sync_change AFTER INSERT OR DELETE ON workout_comments
    FOR EACH ROW EXECUTE FUNCTION spotter_sync_row_or_delete('comment', 'comment_id');
CREATE TRIGGER sync_change AFTER INSERT OR UPDATE OR DELETE ON assignments
    FOR EACH ROW EXECUTE FUNCTION spotter_sync_assignment();
CREATE TRIGGER sync_dependents AFTER UPDATE ON templates
    FOR EACH ROW EXECUTE FUNCTION spotter_sync_template_dependents();
CREATE TRIGGER sync_dependents AFTER UPDATE ON programs
    FOR EACH ROW EXECUTE FUNCTION spotter_sync_program_dependents();
CREATE TRIGGER sync_dependents AFTER UPDATE OF display_name ON tenants
    FOR EACH ROW WHEN (OLD.display_name IS DISTINCT FROM NEW.display_name)
    EXECUTE FUNCTION spotter_sync_name_dependents();
CREATE TRIGGER sync_dependents AFTER UPDATE OF name ON exercises
    FOR EACH ROW WHEN (OLD.name IS DISTINCT FROM NEW.name) EXECUTE FUNCTION spotter_sync_exercise_dependents();
CREATE TRIGGER sync_dependents AFTER INSERT OR UPDATE OF status ON coach_links
    FOR EACH ROW EXECUTE FUNCTION spotter_sync_link();

-- Forgets tombstones and mutation answers older than `cutoff`, in every tenant, and raises each
-- tenant's `purged_seq` past the tombstones it forgot. Returns how many tombstones went.
CREATE FUNCTION spotter_sync_purge(cutoff timestamptz) RETURNS bigint
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
DECLARE
    purged bigint;
BEGIN
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

DO $$
DECLARE
    f text;
BEGIN
    FOREACH f IN ARRAY ARRAY['spotter_record_change(uuid, text, uuid, boolean)',
        'spotter_record_changes(refcursor)', 'spotter_sync_row()', 'spotter_sync_row_or_delete()',
        'spotter_sync_assignment()', 'spotter_sync_template_dependents()', 'spotter_sync_program_dependents()',
        'spotter_sync_exercise_dependents()', 'spotter_sync_name_dependents()', 'spotter_sync_link()', 'spotter_sync_purge(timestamptz)']
    LOOP
        EXECUTE format('ALTER FUNCTION %s OWNER TO spotter_sync', f);
        EXECUTE format('REVOKE ALL ON FUNCTION %s FROM PUBLIC', f);
    END LOOP;
END
$$;
GRANT EXECUTE ON FUNCTION spotter_sync_purge(timestamptz) TO spotter_app, spotter_admin;
