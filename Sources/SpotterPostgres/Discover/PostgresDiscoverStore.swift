import Foundation
import Postgres
import SpotterCore

/// `DiscoverStore` on PostgreSQL (migration 0022): every method runs in a transaction acting as the
/// principal's tenant, and the policies decide what is public.
public struct PostgresDiscoverStore: DiscoverStore {
    private let database: SpotterDatabase

    public init(database: SpotterDatabase) {
        self.database = database
    }

    public func inOneTransaction<T: Sendable>(_ principal: Principal, _ body: () async throws -> T) async throws -> T {
        try await database.withTenant(principal) { _ in try await body() }
    }

    public func ownsTemplate(_ principal: Principal, _ id: TemplateID) async throws -> Bool {
        try await database.withTenant(principal) { connection in
            try await connection.query(
                "SELECT 1 FROM templates WHERE tenant_id = $1 AND template_id = $2 AND deleted_at IS NULL",
                [principal.tenantID.rawValue, id.rawValue]
            ).single != nil
        }
    }

    // MARK: Publishing

    public func publish(
        _ principal: Principal, _ version: PublicationVersion, newID: PublicationID, maximumLive: Int, now: Date
    ) async throws -> Publication {
        let tenant = principal.tenantID.rawValue
        let content = try DiscoverSQL.json(version.snapshot)
        return try await database.withTenant(principal) { connection in
            // One author's publishing, one at a time: the live count below stays exact.
            try await connection.query(
                "SELECT pg_advisory_xact_lock(hashtextextended('spotter.publish:' || $1::text, 0))", [tenant])
            let live =
                try await connection.query(
                    """
                    SELECT count(*)::integer AS live,
                           bool_or(kind = $2 AND source_id = $3) AS this_one
                    FROM publications WHERE author_id = $1 AND unpublished_at IS NULL
                    """,
                    [tenant, version.kind.rawValue, version.sourceID]
                ).single
            let liveCount: Int = try live?.decode("live") ?? 0
            let thisOneLive: Bool? = try live?.decode("this_one")
            if liveCount >= maximumLive, thisOneLive != true {
                throw SpotterError.failedPrecondition(
                    "you have \(liveCount) live publications, the most one account may have; unpublish one first")
            }
            // A first publish inserts the row (its facets are written below, with every version's).
            let created =
                try await connection.query(
                    """
                    INSERT INTO publications (publication_id, author_id, kind, source_id, version, title, description,
                        difficulty, categories, muscle_groups, equipment, exercise_ids, search_text, estimated_minutes,
                        weeks, sessions_per_week, published_at, updated_at)
                    VALUES ($1, $2, $3, $4, 1, $5, $6, $7, '{}', '{}', '{}', '{}', '', 1, 0, 0, $8, $8)
                    ON CONFLICT (author_id, kind, source_id) DO NOTHING
                    """,
                    [
                        newID.rawValue, tenant, version.kind.rawValue, version.sourceID, version.title,
                        version.description, version.difficulty.rawValue, now,
                    ]
                ).affectedRows == 1
            // The row is held first; the latest version is read after, by a statement that sees
            // what a publish committed while this one waited.
            let current = try await connection.query(
                """
                SELECT publication_id, version FROM publications
                WHERE author_id = $1 AND kind = $2 AND source_id = $3
                FOR UPDATE
                """,
                [tenant, version.kind.rawValue, version.sourceID]
            ).single!
            let id: UUID = try current.decode("publication_id")
            var number: Int = try current.decode("version")
            let stored = try await connection.query(
                "SELECT content::text AS content FROM publication_versions WHERE publication_id = $1 AND version = $2",
                [id, number]
            ).single.map { try $0.decode("content") as String }
            let sameContent = try stored.map { try DiscoverSQL.snapshot($0) } == version.snapshot
            if !sameContent {
                if !created { number += 1 }
                try await connection.query(
                    """
                    INSERT INTO publication_versions (publication_id, version, author_id, content, published_at)
                    VALUES ($1, $2, $3, $4::jsonb, $5)
                    """,
                    [id, number, tenant, content, now])
            }
            let facets = version.facets
            try await connection.query(
                """
                UPDATE publications SET version = $2, title = $3, description = $4, difficulty = $5,
                    categories = $6::text[], muscle_groups = $7::text[], equipment = $8::text[],
                    exercise_ids = $9::uuid[], search_text = $10, estimated_minutes = $11, weeks = $12,
                    sessions_per_week = $13, unpublished_at = NULL,
                    updated_at = CASE WHEN $14 THEN updated_at ELSE $15 END
                WHERE publication_id = $1
                """,
                [
                    id, number, version.title, version.description, version.difficulty.rawValue,
                    version.categories.map(\.rawValue), facets.muscleGroups.map(\.rawValue),
                    facets.equipment.map(\.rawValue), facets.exerciseIDs.map(\.rawValue), version.searchText,
                    facets.estimatedMinutes, facets.weeks, facets.sessionsPerWeek, sameContent, now,
                ])
            return try await DiscoverSQL.publication(PublicationID(rawValue: id), now: now, connection)!
        }
    }

    public func unpublish(_ principal: Principal, _ id: PublicationID, now: Date) async throws -> Bool {
        try await database.withTenant(principal) { connection in
            // Already hidden is done: the author's own publication is found either way.
            try await connection.query(
                """
                WITH hidden AS (
                  UPDATE publications SET unpublished_at = $3
                  WHERE author_id = $1 AND publication_id = $2 AND unpublished_at IS NULL
                  RETURNING publication_id
                )
                SELECT EXISTS (SELECT FROM hidden)
                    OR EXISTS (SELECT FROM publications WHERE author_id = $1 AND publication_id = $2) AS found
                """,
                [principal.tenantID.rawValue, id.rawValue, now]
            ).single?.decode("found") ?? false
        }
    }

    public func publication(_ principal: Principal, _ id: PublicationID, version: Int?, now: Date) async throws
        -> PublicationDetail?
    {
        try await database.withTenant(principal) { connection in
            guard
                let publication = try await DiscoverSQL.publication(id, now: now, connection)
            else { return nil }
            let number = version ?? publication.version
            guard
                let row = try await connection.query(
                    "SELECT content::text AS content FROM publication_versions WHERE publication_id = $1 AND version = $2",
                    [id.rawValue, number]
                ).single
            else { return nil }
            return PublicationDetail(
                publication: publication, version: number, snapshot: try DiscoverSQL.snapshot(try row.decode("content"))
            )
        }
    }

    public func publications(
        _ principal: Principal, _ filter: PublicationFilter, after cursor: PublicationCursor?, limit: Int, now: Date
    ) async throws -> [Publication] {
        try await database.withTenant(principal) { connection in
            try await DiscoverSQL.publications(filter, after: cursor, now: now, limit: limit, connection)
        }
    }

    public func ownPublications(_ principal: Principal, now: Date) async throws -> [Publication] {
        var filter = PublicationFilter()
        filter.author = principal.tenantID
        filter.includeUnpublished = true
        filter.sort = .newest
        return try await publications(principal, filter, after: nil, limit: 500, now: now)
    }

    // MARK: Authors

    public func directory(
        _ principal: Principal, speciality: String?, words: [String], after cursor: DirectoryCursor?, limit: Int,
        now: Date
    ) async throws -> [AuthorProfile] {
        try await database.withTenant(principal) { connection in
            try await DiscoverSQL.refreshPopularity(now, connection)
            // The coaches with their sums kept per author (migration 0036), in the order of the page.
            return try await connection.query(
                """
                SELECT tenant_id, kind, display_name, username, bio, to_json(specialities)::text AS specialities,
                       to_json(highlights)::text AS highlights, listed, followers, recent
                FROM spotter_directory($1, $2, $3, $4, $5)
                """,
                [speciality, words, cursor?.recentFollowers, cursor?.id.rawValue, limit]
            ).map(DiscoverSQL.decodeAuthor)
        }
    }

    public func author(_ principal: Principal, _ id: TenantID, now: Date) async throws -> AuthorProfile? {
        try await database.withTenant(principal) { connection in
            try await DiscoverSQL.refreshPopularity(now, connection)
            // Planned for this author (see `DiscoverSQL.publications`).
            return try await connection.pipeline([(DiscoverSQL.authorSelect, [id.rawValue])], planning: .custom)[0]
                .single.map(DiscoverSQL.decodeAuthor)
        }
    }

    public func listing(_ principal: Principal) async throws -> (listed: Bool, highlights: [String]) {
        try await database.withTenant(principal) { connection in
            let row = try await connection.query(
                "SELECT listed_in_directory, to_json(highlights)::text AS highlights FROM tenants WHERE tenant_id = $1",
                [principal.tenantID.rawValue]
            ).single
            guard let row else { return (false, []) }
            return (try row.decode("listed_in_directory"), try DiscoverSQL.array(String.self, row, "highlights"))
        }
    }

    public func setListing(_ principal: Principal, listed: Bool, highlights: [String], now: Date) async throws {
        try await database.withTenant(principal) { connection in
            try await connection.query(
                """
                UPDATE tenants SET listed_in_directory = $2, highlights = $3::text[]
                WHERE tenant_id = $1
                """,
                [principal.tenantID.rawValue, listed, highlights])
        }
    }

    // MARK: Follows

    public func follows(_ principal: Principal) async throws -> [PublicationFollow] {
        try await database.withTenant(principal) { connection in
            try await connection.query(
                """
                SELECT publication_id, kind, version, copy_id, followed_at FROM publication_follows
                WHERE tenant_id = $1 ORDER BY followed_at DESC, publication_id
                """,
                [principal.tenantID.rawValue]
            ).map(DiscoverSQL.decodeFollow)
        }
    }

    public func recordFollow(_ principal: Principal, _ follow: PublicationFollow, now: Date) async throws {
        try await database.withTenant(principal) { connection in
            try await connection.query(
                """
                INSERT INTO publication_follows (tenant_id, publication_id, kind, version, copy_id, followed_at,
                                                 updated_at)
                VALUES ($1, $2, $3, $4, $5, $6, $7)
                ON CONFLICT (tenant_id, publication_id)
                DO UPDATE SET version = excluded.version, copy_id = excluded.copy_id, updated_at = excluded.updated_at
                """,
                [
                    principal.tenantID.rawValue, follow.publicationID.rawValue, follow.kind.rawValue, follow.version,
                    follow.copyID, follow.followedAt, now,
                ])
        }
    }

    public func alsoFollowed(_ principal: Principal, minimumShared: Int) async throws
        -> [(publication: PublicationID, because: PublicationID, shared: Int)]
    {
        try await database.withTenant(principal) { connection in
            try await connection.query(
                "SELECT publication_id, because, shared FROM spotter_also_followed($1)", [minimumShared]
            ).map { row in
                (
                    PublicationID(rawValue: try row.decode("publication_id")),
                    PublicationID(rawValue: try row.decode("because")), try row.decode("shared")
                )
            }
        }
    }

    public func digest(_ principal: Principal, since: Date, now: Date) async throws -> TrainingDigest {
        let parameters: [any PostgresEncodable] = [principal.tenantID.rawValue, since, now]
        return try await database.withTenant(principal) { connection in
            let used = """
                FROM workouts w
                JOIN workout_exercises we ON we.tenant_id = w.tenant_id AND we.workout_id = w.workout_id
                LEFT JOIN catalog_exercises c ON c.exercise_id = we.exercise_id
                LEFT JOIN exercises e ON e.tenant_id = we.tenant_id AND e.exercise_id = we.exercise_id
                WHERE w.tenant_id = $1 AND w.deleted_at IS NULL AND w.started_at >= $2 AND w.started_at <= $3
                """
            let groups = try await connection.query(
                """
                SELECT coalesce(c.muscle_group, e.muscle_group) AS muscle_group,
                       count(DISTINCT w.workout_id)::integer AS workouts, max(w.started_at) AS last_at
                \(used)
                GROUP BY 1 HAVING coalesce(c.muscle_group, e.muscle_group) IS NOT NULL
                """, parameters
            ).map { row in
                TrainingDigest.MuscleGroupUse(
                    muscleGroup: try ExerciseSQL.enumValue(row, "muscle_group"), workouts: try row.decode("workouts"),
                    lastTrainedAt: try row.decode("last_at"))
            }
            let equipment: [Equipment] = try await connection.query(
                "SELECT DISTINCT coalesce(c.equipment, e.equipment) AS equipment \(used)", parameters
            ).compactMap { row in
                guard let text: String = try row.decode("equipment") else { return nil }
                return Equipment(rawValue: text)
            }
            let templates = try await connection.query(
                """
                SELECT w.template_id, t.name, count(*)::integer AS workouts,
                       count(DISTINCT floor(extract(epoch FROM ($3 - w.started_at)) / 604800))
                           FILTER (WHERE w.started_at > $3 - interval '28 days')::integer AS recent_weeks,
                       (SELECT to_json(coalesce(array_agg(i.exercise_id ORDER BY i.position), '{}'))::text
                        FROM template_items i
                        WHERE i.tenant_id = w.tenant_id AND i.template_id = w.template_id) AS exercise_ids
                FROM workouts w
                JOIN templates t ON t.tenant_id = w.tenant_id AND t.template_id = w.template_id
                                AND t.deleted_at IS NULL
                WHERE w.tenant_id = $1 AND w.deleted_at IS NULL AND w.started_at >= $2 AND w.started_at <= $3
                GROUP BY w.tenant_id, w.template_id, t.name
                """, parameters
            ).map { row in
                TrainingDigest.TemplateUse(
                    templateID: TemplateID(rawValue: try row.decode("template_id")), name: try row.decode("name"),
                    exerciseIDs: try DiscoverSQL.array(UUID.self, row, "exercise_ids").map(ExerciseID.init),
                    workouts: try row.decode("workouts"), recentWeeks: try row.decode("recent_weeks"))
            }
            return TrainingDigest(muscleGroups: groups, templates: templates, equipment: equipment)
        }
    }
}
