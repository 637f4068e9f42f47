-- Popularity kept per publication, so that browsing reads the most popular page from an index
-- instead of summing every publication's follower days for every page (10,000 publications:
-- 85 ms a page before, Benchmarks/README.md "Discover").
--
-- publication_stats  current followers and, of those, the ones who started in the 30 days before
--                    `counted_on` (a UTC day). The follow trigger keeps both; the window slides when
--                    `spotter_refresh_popularity(day)` recounts the rows last counted before that day
--                    (DiscoverStore calls it before reading popularity; after the first call of a day
--                    it changes nothing). Counts only: readable by everyone, written by the owner's
--                    functions below.

CREATE TABLE publication_stats (
    publication_id   uuid PRIMARY KEY REFERENCES publications (publication_id) ON DELETE CASCADE,
    followers        integer NOT NULL DEFAULT 0 CHECK (followers >= 0),
    recent_followers integer NOT NULL DEFAULT 0 CHECK (recent_followers >= 0),
    counted_on       date NOT NULL
);
CREATE INDEX publication_stats_popular_idx ON publication_stats (recent_followers DESC, publication_id);
CREATE INDEX publication_stats_counted_idx ON publication_stats (counted_on);
ALTER TABLE publication_stats ENABLE ROW LEVEL SECURITY;
CREATE POLICY public_read ON publication_stats FOR SELECT TO spotter_app, spotter_admin USING (true);
GRANT SELECT ON publication_stats TO spotter_app, spotter_admin;

INSERT INTO publication_stats (publication_id, followers, recent_followers, counted_on)
SELECT p.publication_id, coalesce(sum(d.followers), 0),
       coalesce(sum(d.followers) FILTER (WHERE d.day > (now() AT TIME ZONE 'UTC')::date - 30), 0),
       (now() AT TIME ZONE 'UTC')::date
FROM publications p LEFT JOIN publication_follower_days d ON d.publication_id = p.publication_id
GROUP BY p.publication_id;

-- Every publication has its stats row from the start.
CREATE FUNCTION spotter_new_publication_stats() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
BEGIN
    INSERT INTO publication_stats (publication_id, counted_on)
    VALUES (NEW.publication_id, (NEW.published_at AT TIME ZONE 'UTC')::date);
    RETURN NULL;
END
$$;
REVOKE ALL ON FUNCTION spotter_new_publication_stats() FROM PUBLIC;
CREATE TRIGGER new_publication_stats AFTER INSERT ON publications
    FOR EACH ROW EXECUTE FUNCTION spotter_new_publication_stats();

-- A follow counts on its day and in the publication's totals; a follow that ends is taken off
-- both (off the recent count only when it was still in the window last counted).
CREATE OR REPLACE FUNCTION spotter_count_follower() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
DECLARE
    started date;
BEGIN
    IF TG_OP = 'INSERT' THEN
        started := (NEW.followed_at AT TIME ZONE 'UTC')::date;
        INSERT INTO publication_follower_days AS d (publication_id, day, followers)
        VALUES (NEW.publication_id, started, 1)
        ON CONFLICT (publication_id, day) DO UPDATE SET followers = d.followers + 1;
        UPDATE publication_stats
        SET followers = followers + 1,
            recent_followers = recent_followers + CASE WHEN started > counted_on - 30 THEN 1 ELSE 0 END
        WHERE publication_id = NEW.publication_id;
    ELSE
        started := (OLD.followed_at AT TIME ZONE 'UTC')::date;
        UPDATE publication_follower_days SET followers = followers - 1
        WHERE publication_id = OLD.publication_id AND day = started AND followers > 0;
        UPDATE publication_stats
        SET followers = greatest(followers - 1, 0),
            recent_followers = greatest(recent_followers - CASE WHEN started > counted_on - 30 THEN 1 ELSE 0 END, 0)
        WHERE publication_id = OLD.publication_id;
    END IF;
    RETURN NULL;
END
$$;

-- Slides the 30-day window to `as_of`: recounts the publications last counted before it. Returns
-- how many it recounted.
CREATE FUNCTION spotter_refresh_popularity(as_of date) RETURNS integer
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
DECLARE
    changed integer;
BEGIN
    UPDATE publication_stats s
    SET recent_followers = coalesce((SELECT sum(d.followers) FROM publication_follower_days d
                                     WHERE d.publication_id = s.publication_id AND d.day > as_of - 30), 0),
        counted_on = as_of
    WHERE s.counted_on < as_of;
    GET DIAGNOSTICS changed = ROW_COUNT;
    RETURN changed;
END
$$;
REVOKE ALL ON FUNCTION spotter_refresh_popularity(date) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION spotter_refresh_popularity(date) TO spotter_app, spotter_admin;

-- The public authors among `ids` found by their keys. One SQL statement for both cases was planned
-- generically, for all authors: 1.9 ms of a 2.1 ms page with 1,000 authors; now a page's authors
-- are read by key (Benchmarks/README.md "Discover").
CREATE OR REPLACE FUNCTION spotter_public_authors(ids uuid[])
RETURNS TABLE (tenant_id uuid, kind text, display_name text, username text, bio text, specialities text[],
               highlights text[], listed boolean)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
#variable_conflict use_column
BEGIN
    IF spotter_current_tenant() IS NULL THEN
        RETURN;
    END IF;
    IF ids IS NOT NULL THEN
        RETURN QUERY
        SELECT t.tenant_id, t.kind, t.display_name, a.username, t.bio, t.specialities, t.highlights,
               t.listed_in_directory AND t.kind = 'coach'
        FROM tenants t
        JOIN LATERAL (SELECT a.username FROM accounts a
                      WHERE a.tenant_id = t.tenant_id AND a.status = 'active'
                      ORDER BY a.created_at LIMIT 1) a ON true
        WHERE t.tenant_id = ANY (ids)
          AND ((t.listed_in_directory AND t.kind = 'coach')
               OR EXISTS (SELECT FROM publications p WHERE p.author_id = t.tenant_id AND p.unpublished_at IS NULL));
    ELSE
        RETURN QUERY
        SELECT t.tenant_id, t.kind, t.display_name, a.username, t.bio, t.specialities, t.highlights,
               t.listed_in_directory AND t.kind = 'coach'
        FROM tenants t
        JOIN LATERAL (SELECT a.username FROM accounts a
                      WHERE a.tenant_id = t.tenant_id AND a.status = 'active'
                      ORDER BY a.created_at LIMIT 1) a ON true
        WHERE t.tenant_id IN (SELECT x.tenant_id FROM tenants x WHERE x.listed_in_directory AND x.kind = 'coach'
                              UNION
                              SELECT p.author_id FROM publications p WHERE p.unpublished_at IS NULL);
    END IF;
END
$$;
