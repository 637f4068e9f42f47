-- Discover at scale: 1,000 coaches (half of them listed), 10,000 publications, 60 days of
-- follower counts; then the queries DiscoverStore sends for a page of 20 (21 read), timed.
-- Run by Benchmarks/discover.sh on a database spotterctl has migrated; prints psql's timings.
\set ON_ERROR_STOP on
INSERT INTO tenants (tenant_id, kind, display_name)
SELECT ('10000000-0000-4000-8000-' || lpad(i::text, 12, '0'))::uuid, 'coach', 'Coach ' || i FROM generate_series(1, 1000) i;
INSERT INTO accounts (tenant_id, account_id, email, username, password_hash)
SELECT ('10000000-0000-4000-8000-' || lpad(i::text, 12, '0'))::uuid, gen_random_uuid(), 'coach' || i || '@example.com',
       'coach' || i, 'x'
FROM generate_series(1, 1000) i;
UPDATE tenants SET listed_in_directory = true, bio = 'Strength coach', specialities = '{powerlifting}'
WHERE tenant_id::text LIKE '10000000-%' AND random() < 0.5;
INSERT INTO publications (publication_id, author_id, kind, source_id, version, title, description, difficulty, categories,
    muscle_groups, equipment, exercise_ids, search_text, estimated_minutes, weeks, sessions_per_week, published_at,
    updated_at)
SELECT gen_random_uuid(), ('10000000-0000-4000-8000-' || lpad((1 + i % 1000)::text, 12, '0'))::uuid,
       CASE WHEN i % 3 = 0 THEN 'program' ELSE 'template' END, gen_random_uuid(), 1, 'Plan ' || i, 'A plan',
       (ARRAY['beginner', 'intermediate', 'advanced'])[1 + i % 3],
       ARRAY[(ARRAY['strength', 'hypertrophy', 'powerlifting', 'bodyweight'])[1 + i % 4]],
       ARRAY[(ARRAY['chest', 'back', 'quadriceps', 'hamstrings', 'shoulders'])[1 + i % 5],
             (ARRAY['biceps', 'glutes', 'abs'])[1 + i % 3]],
       ARRAY[(ARRAY['barbell', 'dumbbell', 'bodyweight', 'machine'])[1 + i % 4]], '{}',
       'plan ' || i || ' a plan squat bench', 20 + i % 70, 0, 0, now() - (i % 365) * interval '1 day',
       now() - (i % 365) * interval '1 day'
FROM generate_series(1, 10000) i;
-- One version of each (what a publication's page reads).
INSERT INTO publication_versions (publication_id, version, author_id, content, published_at)
SELECT publication_id, 1, author_id, '{"name":"Plan","items":[]}', published_at FROM publications;
-- Follower days written directly (as if by many follows), then counted into the stats once.
INSERT INTO publication_follower_days (publication_id, day, followers)
SELECT p.publication_id, current_date - d, (random() * 5)::int
FROM publications p, generate_series(0, 59, 3) d WHERE random() < 0.5;
UPDATE publication_stats s
SET followers = (SELECT coalesce(sum(d.followers), 0) FROM publication_follower_days d
                 WHERE d.publication_id = s.publication_id),
    counted_on = '2000-01-01';
SELECT spotter_refresh_popularity((now() AT TIME ZONE 'UTC')::date) AS recounted_once_a_day;
VACUUM ANALYZE;

BEGIN;
-- Acting as coach7, as spotter_app (the lookup before the role change: accounts are private).
SELECT set_config('spotter.tenant_id', (SELECT tenant_id::text FROM accounts WHERE username = 'coach7'), true);
SET LOCAL ROLE spotter_app;
PREPARE refresh AS SELECT spotter_refresh_popularity((now() AT TIME ZONE 'UTC')::date);
-- The statements PostgresDiscoverStore.publications sends: no filter, and three filters.
PREPARE browse AS
WITH page AS (
    SELECT p.publication_id, p.author_id, p.kind,
           CASE WHEN p.author_id = spotter_current_tenant() THEN p.source_id END AS source_id, p.version,
           p.title, p.description, p.difficulty, to_json(p.categories)::text AS categories,
           to_json(p.muscle_groups)::text AS muscle_groups, to_json(p.equipment)::text AS equipment,
           to_json(p.exercise_ids)::text AS exercise_ids, p.estimated_minutes, p.weeks,
           p.sessions_per_week, p.published_at, p.updated_at, p.unpublished_at,
           s.followers, s.recent_followers
    FROM publications p JOIN publication_stats s ON s.publication_id = p.publication_id
    WHERE p.unpublished_at IS NULL
    ORDER BY s.recent_followers DESC, s.publication_id
    LIMIT 21
)
SELECT page.*, coalesce(own.display_name, author.display_name, '') AS author_name
FROM page
LEFT JOIN tenants own ON own.tenant_id = page.author_id AND own.tenant_id = spotter_current_tenant()
LEFT JOIN spotter_public_authors(ARRAY(SELECT DISTINCT author_id FROM page)) author ON author.tenant_id = page.author_id
ORDER BY page.recent_followers DESC, page.publication_id;
PREPARE browse_filtered(text[], text[], text[]) AS
WITH page AS (
    SELECT p.publication_id, p.author_id, p.kind,
           CASE WHEN p.author_id = spotter_current_tenant() THEN p.source_id END AS source_id, p.version,
           p.title, p.description, p.difficulty, to_json(p.categories)::text AS categories,
           to_json(p.muscle_groups)::text AS muscle_groups, to_json(p.equipment)::text AS equipment,
           to_json(p.exercise_ids)::text AS exercise_ids, p.estimated_minutes, p.weeks,
           p.sessions_per_week, p.published_at, p.updated_at, p.unpublished_at,
           s.followers, s.recent_followers
    FROM publications p JOIN publication_stats s ON s.publication_id = p.publication_id
    WHERE p.unpublished_at IS NULL
      AND p.muscle_groups && $1::text[] AND p.equipment <@ $2::text[]
      AND NOT EXISTS (SELECT FROM unnest($3::text[]) w WHERE strpos(p.search_text, w) = 0)
    ORDER BY s.recent_followers DESC, s.publication_id
    LIMIT 21
)
SELECT page.*, coalesce(own.display_name, author.display_name, '') AS author_name
FROM page
LEFT JOIN tenants own ON own.tenant_id = page.author_id AND own.tenant_id = spotter_current_tenant()
LEFT JOIN spotter_public_authors(ARRAY(SELECT DISTINCT author_id FROM page)) author ON author.tenant_id = page.author_id
ORDER BY page.recent_followers DESC, page.publication_id;
PREPARE directory AS
SELECT tenant_id, kind, display_name, username, bio, to_json(specialities)::text AS specialities,
       to_json(highlights)::text AS highlights, listed, followers, recent
FROM spotter_directory(NULL, '{}', NULL, NULL, 21);
PREPARE version_read(uuid) AS
SELECT content::text AS content FROM publication_versions WHERE publication_id = $1 AND version = 1;
\timing on
SELECT count(*) AS visible_publications FROM publications;
\echo == the no-op window refresh a read does, 3 times
EXECUTE refresh; EXECUTE refresh; EXECUTE refresh;
\echo == the most popular page, no filter, 5 times
EXECUTE browse; EXECUTE browse; EXECUTE browse; EXECUTE browse; EXECUTE browse;
\echo == chest, barbell or dumbbell only, text "squat plan", 5 times
EXECUTE browse_filtered('{chest}', '{barbell,dumbbell}', '{squat,plan}');
EXECUTE browse_filtered('{chest}', '{barbell,dumbbell}', '{squat,plan}');
EXECUTE browse_filtered('{chest}', '{barbell,dumbbell}', '{squat,plan}');
EXECUTE browse_filtered('{chest}', '{barbell,dumbbell}', '{squat,plan}');
EXECUTE browse_filtered('{chest}', '{barbell,dumbbell}', '{squat,plan}');
\echo == the first page of the coach directory (about 500 listed coaches), 5 times
EXECUTE directory; EXECUTE directory; EXECUTE directory; EXECUTE directory; EXECUTE directory;
\echo == one version of a publication, as its page reads it, 5 times
SELECT publication_id AS read_version FROM publications ORDER BY publication_id OFFSET 4321 LIMIT 1 \gset
EXECUTE version_read(:'read_version'); EXECUTE version_read(:'read_version'); EXECUTE version_read(:'read_version');
EXECUTE version_read(:'read_version'); EXECUTE version_read(:'read_version');
ROLLBACK;
