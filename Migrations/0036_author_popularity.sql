-- The coach directory ranks listed coaches by their live publications' recent followers. A page
-- summed every live publication's counts and read every public author first (1,000 coaches and
-- 10,000 publications: 21-24 ms a page, growing with all of Discover, Benchmarks/README.md
-- "Discover"). Now each author's sums are kept beside the publications' (`publication_stats`), and
-- a page reads the listed coaches with their sums.
--
-- publication_author_stats  per author, the sums of `followers` and `recent_followers` over their
--                           live publications. A follow or unfollow adds its change (the trigger on
--                           `publication_stats`), as does unpublishing or publishing again (the
--                           trigger on `publications`); the daily recount of the 30-day window
--                           (`spotter_refresh_popularity`) sums again each author whose publications
--                           it recounts. Read only through `spotter_directory`: which tenants ever
--                           published is nobody else's business. Every publication's counts go
--                           stale each day, so every author is summed again by the first recount of
--                           a day: a follow that races the unpublishing of the same publication
--                           (each reads the other as not yet done) leaves its author's sums one off
--                           until then, and no longer.

CREATE TABLE publication_author_stats (
    author_id        uuid PRIMARY KEY REFERENCES tenants (tenant_id) ON DELETE CASCADE,
    followers        integer NOT NULL DEFAULT 0 CHECK (followers >= 0),
    recent_followers integer NOT NULL DEFAULT 0 CHECK (recent_followers >= 0)
);
ALTER TABLE publication_author_stats ENABLE ROW LEVEL SECURITY;

INSERT INTO publication_author_stats (author_id, followers, recent_followers)
SELECT p.author_id, coalesce(sum(s.followers) FILTER (WHERE p.unpublished_at IS NULL), 0),
       coalesce(sum(s.recent_followers) FILTER (WHERE p.unpublished_at IS NULL), 0)
FROM publications p JOIN publication_stats s ON s.publication_id = p.publication_id
GROUP BY p.author_id;

-- A publication's counts moved by a follow or an unfollow (not by the recount, which changes
-- `counted_on` and sums its authors again itself: the trigger's condition leaves its updates out):
-- its author's sums move with them while it is live. Every author has a row from their first
-- publication on.
CREATE FUNCTION spotter_count_author() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO publication_author_stats (author_id)
        SELECT p.author_id FROM publications p WHERE p.publication_id = NEW.publication_id
        ON CONFLICT (author_id) DO NOTHING;
    ELSE
        UPDATE publication_author_stats a
        SET followers = greatest(a.followers + NEW.followers - OLD.followers, 0),
            recent_followers = greatest(a.recent_followers + NEW.recent_followers - OLD.recent_followers, 0)
        FROM publications p
        WHERE p.publication_id = NEW.publication_id AND p.unpublished_at IS NULL AND a.author_id = p.author_id;
    END IF;
    RETURN NULL;
END
$$;
REVOKE ALL ON FUNCTION spotter_count_author() FROM PUBLIC;
CREATE TRIGGER count_author AFTER INSERT ON publication_stats
    FOR EACH ROW EXECUTE FUNCTION spotter_count_author();
CREATE TRIGGER count_author_followers AFTER UPDATE ON publication_stats
    FOR EACH ROW
    WHEN (NEW.counted_on = OLD.counted_on
          AND (NEW.followers, NEW.recent_followers) IS DISTINCT FROM (OLD.followers, OLD.recent_followers))
    EXECUTE FUNCTION spotter_count_author();

-- Unpublishing takes a publication's counts off its author's sums; publishing it again puts them
-- back.
CREATE FUNCTION spotter_count_author_publication() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
DECLARE
    sign integer := CASE WHEN NEW.unpublished_at IS NULL THEN 1 ELSE -1 END;
BEGIN
    IF (OLD.unpublished_at IS NULL) <> (NEW.unpublished_at IS NULL) THEN
        UPDATE publication_author_stats a
        SET followers = greatest(a.followers + sign * s.followers, 0),
            recent_followers = greatest(a.recent_followers + sign * s.recent_followers, 0)
        FROM publication_stats s
        WHERE a.author_id = NEW.author_id AND s.publication_id = NEW.publication_id;
    END IF;
    RETURN NULL;
END
$$;
REVOKE ALL ON FUNCTION spotter_count_author_publication() FROM PUBLIC;
CREATE TRIGGER count_author_publication AFTER UPDATE OF unpublished_at ON publications
    FOR EACH ROW EXECUTE FUNCTION spotter_count_author_publication();

-- The recount of 0025, author by author (the stale publications in their authors' order): each
-- author's row is locked, that author's stale publications recounted, and at the end the sums of
-- every author locked are read again from them, in one statement. Rows being changed right now (an
-- author's row or a publication's) are skipped as before (SKIP LOCKED): an author whose row is held
-- keeps their publications stale for the next read or pass, so the recount still never waits and
-- never takes part in a deadlock. The sums are read after the locks, so they include every follow
-- committed before; a follow still running adds its change to them when it reaches the author's
-- row, after this transaction.
CREATE OR REPLACE FUNCTION spotter_refresh_popularity(as_of date) RETURNS integer
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
DECLARE
    stale record;
    author uuid;
    locked boolean := false;
    summed uuid[] := '{}';
    changed integer := 0;
BEGIN
    FOR stale IN
        SELECT s.publication_id, p.author_id
        FROM publication_stats s JOIN publications p ON p.publication_id = s.publication_id
        WHERE s.counted_on < as_of
        ORDER BY p.author_id, s.publication_id
        FOR UPDATE OF s SKIP LOCKED
    LOOP
        IF stale.author_id IS DISTINCT FROM author THEN
            author := stale.author_id;
            PERFORM FROM publication_author_stats a WHERE a.author_id = author FOR UPDATE SKIP LOCKED;
            locked := FOUND;
            IF locked THEN
                summed := summed || author;
            END IF;
        END IF;
        IF locked THEN
            UPDATE publication_stats s
            SET recent_followers = coalesce((SELECT sum(d.followers) FROM publication_follower_days d
                                             WHERE d.publication_id = stale.publication_id
                                               AND d.day > as_of - 30), 0),
                counted_on = as_of
            WHERE s.publication_id = stale.publication_id;
            changed := changed + 1;
        END IF;
    END LOOP;
    UPDATE publication_author_stats a
    SET followers = t.followers, recent_followers = t.recent
    FROM (SELECT x.author_id, coalesce(sum(s.followers), 0) AS followers,
                 coalesce(sum(s.recent_followers), 0) AS recent
          FROM unnest(summed) AS x (author_id)
          LEFT JOIN publications p ON p.author_id = x.author_id AND p.unpublished_at IS NULL
          LEFT JOIN publication_stats s ON s.publication_id = p.publication_id
          GROUP BY x.author_id) t
    WHERE a.author_id = t.author_id;
    RETURN changed;
END
$$;

-- A page of the coach directory: listed coaches, most recent followers first (then by id), after
-- the cursor (`after_recent`, `after_id`), of those with `speciality` (lower-cased) among theirs and
-- every one of `words` (lower-cased) in their name, username, bio, specialities or highlights.
CREATE FUNCTION spotter_directory(speciality text, words text[], after_recent integer, after_id uuid, size integer)
RETURNS TABLE (tenant_id uuid, kind text, display_name text, username text, bio text, specialities text[],
               highlights text[], listed boolean, followers integer, recent integer)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
    SELECT t.tenant_id, t.kind, t.display_name, a.username, t.bio, t.specialities, t.highlights, true,
           coalesce(s.followers, 0), coalesce(s.recent_followers, 0)
    FROM tenants t
    JOIN LATERAL (SELECT a.username FROM accounts a
                  WHERE a.tenant_id = t.tenant_id AND a.status = 'active'
                  ORDER BY a.created_at LIMIT 1) a ON true
    LEFT JOIN publication_author_stats s ON s.author_id = t.tenant_id
    WHERE spotter_current_tenant() IS NOT NULL
      AND t.listed_in_directory AND t.kind = 'coach'
      AND (speciality IS NULL OR EXISTS (SELECT FROM unnest(t.specialities) x WHERE lower(x) = speciality))
      AND NOT EXISTS (SELECT FROM unnest(words) w
                      WHERE strpos(lower(t.display_name || ' ' || a.username || ' ' || t.bio || ' '
                                         || array_to_string(t.specialities, ' ') || ' '
                                         || array_to_string(t.highlights, ' ')), w) = 0)
      AND (after_recent IS NULL OR coalesce(s.recent_followers, 0) < after_recent
           OR (coalesce(s.recent_followers, 0) = after_recent AND t.tenant_id > after_id))
    ORDER BY coalesce(s.recent_followers, 0) DESC, t.tenant_id
    LIMIT size
$$;
GRANT SELECT ON publication_author_stats TO spotter_auth;
CREATE POLICY directory_read ON publication_author_stats FOR SELECT TO spotter_auth USING (true);
ALTER FUNCTION spotter_directory(text, text[], integer, uuid, integer) OWNER TO spotter_auth;
REVOKE ALL ON FUNCTION spotter_directory(text, text[], integer, uuid, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION spotter_directory(text, text[], integer, uuid, integer) TO spotter_app, spotter_admin;
