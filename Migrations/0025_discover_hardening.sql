-- Discover, after review:
--
-- 1. A follower reads an unpublished publication only if it followed before the unpublishing: a
--    follow recorded in a race with the unpublishing (or written around the service) grants nothing.
-- 2. The daily popularity recount locks each stale row before counting it, in a statement of its
--    own, so a follow committed meanwhile is counted (one statement read the follower days as they
--    were before it and overwrote the follow's +1); rows being changed right now are skipped
--    (SKIP LOCKED) and recounted by the next read or pass, so the recount never waits, and never
--    takes part in a deadlock, inside a publishing or following transaction.
-- 3. "Followed by lifters who train like you" needs 10 other followers in common, not 3: with 3,
--    two accounts of one person and a publication only the victim follows showed what the victim
--    follows. A determined person with many accounts can still learn something; the README says so.

DROP POLICY public_read ON publications;
CREATE POLICY public_read ON publications FOR SELECT TO spotter_app
    USING (spotter_current_tenant() IS NOT NULL
        AND (unpublished_at IS NULL
            OR EXISTS (SELECT FROM publication_follows f
                       WHERE f.tenant_id = spotter_current_tenant() AND f.publication_id = publications.publication_id
                         AND f.followed_at <= publications.unpublished_at)));

CREATE OR REPLACE FUNCTION spotter_refresh_popularity(as_of date) RETURNS integer
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
DECLARE
    stale uuid;
    changed integer := 0;
BEGIN
    FOR stale IN
        SELECT s.publication_id FROM publication_stats s WHERE s.counted_on < as_of
        ORDER BY s.publication_id
        FOR UPDATE SKIP LOCKED
    LOOP
        UPDATE publication_stats s
        SET recent_followers = coalesce((SELECT sum(d.followers) FROM publication_follower_days d
                                         WHERE d.publication_id = stale AND d.day > as_of - 30), 0),
            counted_on = as_of
        WHERE s.publication_id = stale;
        changed := changed + 1;
    END LOOP;
    RETURN changed;
END
$$;

CREATE OR REPLACE FUNCTION spotter_also_followed(minimum integer)
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
    HAVING count(DISTINCT o.tenant_id) >= greatest(minimum, 10)
$$;
