-- Discover: public, versioned snapshots of templates and programs, who follows (or saved) each,
-- and the public part of an author's profile for the coach directory.
--
-- What is public is the snapshot, never the author's template or program: editing or deleting the
-- source changes nothing until the author publishes again, and a private template is never read
-- by anyone else through these tables.
--
-- publications             one row per published template or program, with its latest version's
--                          facets (what browsing filters on). Everyone signed in reads the live
--                          ones; a follower also reads one unpublished since; only the author writes.
-- publication_versions     every version's snapshot (JSON), read like its publication.
-- publication_follows      a tenant's follow of a public program (or save of a template), the
--                          version taken and the copy in the tenant's own account. Private to it.
-- publication_follower_days  current followers per publication and day they started: the only
--                          cross-tenant fact about follows, a count. Kept by the trigger below.

ALTER TABLE tenants
    ADD COLUMN highlights text[] NOT NULL DEFAULT '{}'
        CONSTRAINT tenants_highlights_count CHECK (cardinality(highlights) <= 5),
    ADD COLUMN listed_in_directory boolean NOT NULL DEFAULT false;

CREATE TABLE publications (
    publication_id    uuid PRIMARY KEY,
    author_id         uuid NOT NULL REFERENCES tenants (tenant_id) ON DELETE CASCADE,
    kind              text NOT NULL CHECK (kind IN ('template', 'program')),
    source_id         uuid NOT NULL,
    version           integer NOT NULL CHECK (version >= 1),
    title             text NOT NULL CHECK (length(title) BETWEEN 1 AND 100),
    description       text NOT NULL CHECK (length(description) <= 2000),
    difficulty        text NOT NULL CHECK (difficulty IN ('beginner', 'intermediate', 'advanced')),
    categories        text[] NOT NULL,
    muscle_groups     text[] NOT NULL,
    equipment         text[] NOT NULL,
    exercise_ids      uuid[] NOT NULL,
    -- Lower-cased title, description and exercise names, for text search.
    search_text       text NOT NULL,
    estimated_minutes integer NOT NULL CHECK (estimated_minutes >= 1),
    weeks             integer NOT NULL CHECK (weeks >= 0),
    sessions_per_week integer NOT NULL CHECK (sessions_per_week >= 0),
    published_at      timestamptz NOT NULL, -- the first version
    updated_at        timestamptz NOT NULL, -- the latest version
    unpublished_at    timestamptz,
    UNIQUE (author_id, kind, source_id)
);
CREATE INDEX publications_newest_idx ON publications (updated_at DESC, publication_id) WHERE unpublished_at IS NULL;
CREATE INDEX publications_author_idx ON publications (author_id) WHERE unpublished_at IS NULL;

CREATE TABLE publication_versions (
    publication_id uuid NOT NULL REFERENCES publications (publication_id) ON DELETE CASCADE,
    version        integer NOT NULL,
    author_id      uuid NOT NULL,
    content        jsonb NOT NULL,
    published_at   timestamptz NOT NULL,
    PRIMARY KEY (publication_id, version)
);

CREATE TABLE publication_follows (
    tenant_id      uuid NOT NULL REFERENCES tenants (tenant_id) ON DELETE CASCADE, -- the follower
    publication_id uuid NOT NULL REFERENCES publications (publication_id) ON DELETE CASCADE,
    kind           text NOT NULL CHECK (kind IN ('template', 'program')),
    version        integer NOT NULL,
    copy_id        uuid NOT NULL, -- the program or template in the follower's account
    followed_at    timestamptz NOT NULL,
    updated_at     timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, publication_id)
);
CREATE INDEX publication_follows_publication_idx ON publication_follows (publication_id);

CREATE TABLE publication_follower_days (
    publication_id uuid NOT NULL REFERENCES publications (publication_id) ON DELETE CASCADE,
    day            date NOT NULL, -- UTC day the followers started
    followers      integer NOT NULL CHECK (followers >= 0),
    PRIMARY KEY (publication_id, day)
);

-- Publications are read across tenants (they carry `author_id`, not `tenant_id`: on Citus they
-- are reference tables, deploy/citus.md); only their author writes them.
DO $$
DECLARE
    t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['publications', 'publication_versions', 'publication_follows']
    LOOP
        EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
        EXECUTE format('ALTER TABLE %I FORCE ROW LEVEL SECURITY', t);
        EXECUTE format('CREATE POLICY admin_all ON %I TO spotter_admin USING (true) WITH CHECK (true)', t);
        EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON %I TO spotter_admin', t);
        EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON %I TO spotter_app', t);
    END LOOP;
END
$$;
CREATE POLICY author_write ON publications TO spotter_app
    USING (author_id = spotter_current_tenant()) WITH CHECK (author_id = spotter_current_tenant());
CREATE POLICY author_write ON publication_versions TO spotter_app
    USING (author_id = spotter_current_tenant()) WITH CHECK (author_id = spotter_current_tenant());
CREATE POLICY tenant_isolation ON publication_follows TO spotter_app
    USING (tenant_id = spotter_current_tenant()) WITH CHECK (tenant_id = spotter_current_tenant());

-- Every signed-in tenant reads live publications; a follower keeps reading the one it follows
-- after the author unpublishes it (its versions stay offered to nobody else).
CREATE POLICY public_read ON publications FOR SELECT TO spotter_app
    USING (spotter_current_tenant() IS NOT NULL
        AND (unpublished_at IS NULL
            OR publication_id IN (SELECT f.publication_id FROM publication_follows f
                                  WHERE f.tenant_id = spotter_current_tenant())));
-- A version is readable when its publication is (the subquery applies the policy above).
CREATE POLICY public_read ON publication_versions FOR SELECT TO spotter_app
    USING (publication_id IN (SELECT p.publication_id FROM publications p));

-- Counts only; written by the trigger below (which runs as the table's owner), read by everyone.
ALTER TABLE publication_follower_days ENABLE ROW LEVEL SECURITY;
CREATE POLICY public_read ON publication_follower_days FOR SELECT TO spotter_app, spotter_admin USING (true);
GRANT SELECT ON publication_follower_days TO spotter_app, spotter_admin;

CREATE FUNCTION spotter_count_follower() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO publication_follower_days AS d (publication_id, day, followers)
        VALUES (NEW.publication_id, (NEW.followed_at AT TIME ZONE 'UTC')::date, 1)
        ON CONFLICT (publication_id, day) DO UPDATE SET followers = d.followers + 1;
    ELSE
        UPDATE publication_follower_days SET followers = followers - 1
        WHERE publication_id = OLD.publication_id AND day = (OLD.followed_at AT TIME ZONE 'UTC')::date
          AND followers > 0;
    END IF;
    RETURN NULL;
END
$$;
REVOKE ALL ON FUNCTION spotter_count_follower() FROM PUBLIC;
CREATE TRIGGER count_follower AFTER INSERT OR DELETE ON publication_follows
    FOR EACH ROW EXECUTE FUNCTION spotter_count_follower();

-- A lifter who stops following a public program's copy (or follows another program) is no longer
-- its follower.
CREATE FUNCTION spotter_end_publication_follow() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
    IF TG_OP = 'DELETE' OR NEW.program_id IS DISTINCT FROM OLD.program_id THEN
        DELETE FROM publication_follows
        WHERE tenant_id = OLD.tenant_id AND kind = 'program' AND copy_id = OLD.program_id;
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER end_publication_follow AFTER UPDATE OR DELETE ON program_follows
    FOR EACH ROW EXECUTE FUNCTION spotter_end_publication_follow();

-- The public face of authors: coaches listed in the directory and tenants with a live
-- publication (all of them for NULL, else those among `ids`). Only these columns, nothing else of
-- the tenant (not its time zone, tier or unit).
CREATE FUNCTION spotter_public_authors(ids uuid[])
RETURNS TABLE (tenant_id uuid, kind text, display_name text, username text, bio text, specialities text[],
               highlights text[], listed boolean)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
    SELECT t.tenant_id, t.kind, t.display_name, a.username, t.bio, t.specialities, t.highlights,
           t.listed_in_directory AND t.kind = 'coach'
    FROM tenants t
    JOIN LATERAL (SELECT a.username FROM accounts a
                  WHERE a.tenant_id = t.tenant_id AND a.status = 'active'
                  ORDER BY a.created_at LIMIT 1) a ON true
    WHERE spotter_current_tenant() IS NOT NULL
      AND t.tenant_id IN (
          SELECT x.tenant_id FROM tenants x
          WHERE x.listed_in_directory AND x.kind = 'coach' AND (ids IS NULL OR x.tenant_id = ANY (ids))
          UNION
          SELECT p.author_id FROM publications p
          WHERE p.unpublished_at IS NULL AND (ids IS NULL OR p.author_id = ANY (ids)))
$$;
CREATE INDEX tenants_directory_idx ON tenants (tenant_id) WHERE listed_in_directory;

-- Live publications followed by at least `minimum` (never fewer than 3) other tenants who also
-- follow one the acting tenant follows: which, because of which, and how many. Counts only: no
-- caller learns who follows what.
CREATE FUNCTION spotter_also_followed(minimum integer)
RETURNS TABLE (publication_id uuid, because uuid, shared integer)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
    SELECT o.publication_id, m.publication_id, count(DISTINCT o.tenant_id)::integer
    FROM publication_follows m
    JOIN publication_follows t ON t.publication_id = m.publication_id AND t.tenant_id <> m.tenant_id
    JOIN publication_follows o ON o.tenant_id = t.tenant_id
    JOIN publications p ON p.publication_id = o.publication_id AND p.unpublished_at IS NULL
    WHERE m.tenant_id = spotter_current_tenant()
      AND o.publication_id NOT IN (SELECT x.publication_id FROM publication_follows x
                                   WHERE x.tenant_id = spotter_current_tenant())
    GROUP BY o.publication_id, m.publication_id
    HAVING count(DISTINCT o.tenant_id) >= greatest(minimum, 3)
$$;

-- spotter_auth owns both and reads what they need through these policies only.
CREATE POLICY author_lookup ON publications FOR SELECT TO spotter_auth USING (true);
CREATE POLICY follow_counts ON publication_follows FOR SELECT TO spotter_auth USING (true);
GRANT SELECT ON publications, publication_follows TO spotter_auth;
DO $$
DECLARE
    f text;
BEGIN
    FOREACH f IN ARRAY ARRAY['spotter_public_authors(uuid[])', 'spotter_also_followed(integer)']
    LOOP
        EXECUTE format('ALTER FUNCTION %s OWNER TO spotter_auth', f);
        EXECUTE format('REVOKE ALL ON FUNCTION %s FROM PUBLIC', f);
        EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO spotter_app, spotter_admin', f);
    END LOOP;
END
$$;
