import Foundation
import Postgres
import SpotterCore

/// Statements and decoders the Discover store shares. Popularity counts followers who started after
/// the UTC day 30 days before the call's `now` (migration 0023).
enum DiscoverSQL {
    /// Slides the popularity window to the call's day before anything reads it (after the first
    /// call of a day it changes nothing).
    static func refreshPopularity(_ now: Date, _ connection: PostgresConnection) async throws {
        try await connection.query(
            "SELECT spotter_refresh_popularity(($1::timestamptz AT TIME ZONE 'UTC')::date)", [now])
    }

    /// Publications matching `condition` (over `p`, with `s` its stats), in `order` (over `p` and
    /// `s`), with their counts and author's name. The page is found first; the authors' names are
    /// then read once for the whole page. With `planning`, the page's statement is planned so (the
    /// window's refresh before it is not: its recount's statements keep their generic plans).
    private static func publications(
        _ condition: String, _ parameters: [any PostgresEncodable], now: Date, order: String, limit: Int,
        planning: PostgresConnection.Planning?, _ connection: PostgresConnection
    ) async throws -> [Publication] {
        try await refreshPopularity(now, connection)
        let outer = order.replacingOccurrences(of: "p.", with: "page.").replacingOccurrences(of: "s.", with: "page.")
        let sql = """
            WITH page AS (
                SELECT p.publication_id, p.author_id, p.kind,
                       CASE WHEN p.author_id = spotter_current_tenant() THEN p.source_id END AS source_id, p.version,
                       p.title, p.description, p.difficulty, to_json(p.categories)::text AS categories,
                       to_json(p.muscle_groups)::text AS muscle_groups, to_json(p.equipment)::text AS equipment,
                       to_json(p.exercise_ids)::text AS exercise_ids, p.estimated_minutes, p.weeks,
                       p.sessions_per_week, p.published_at, p.updated_at, p.unpublished_at,
                       s.followers, s.recent_followers
                FROM publications p JOIN publication_stats s ON s.publication_id = p.publication_id
                WHERE \(condition)
                ORDER BY \(order)
                LIMIT \(limit)
            )
            SELECT page.*, coalesce(own.display_name, author.display_name, '') AS author_name
            FROM page
            -- The acting tenant's own name; every name for an administrator (no tenant set).
            LEFT JOIN tenants own ON own.tenant_id = page.author_id
                                 AND (own.tenant_id = spotter_current_tenant() OR spotter_current_tenant() IS NULL)
            LEFT JOIN spotter_public_authors(ARRAY(SELECT DISTINCT author_id FROM page)) author
                   ON author.tenant_id = page.author_id
            ORDER BY \(outer)
            """
        let rows =
            if let planning {
                try await connection.pipeline([(sql, parameters)], planning: planning)[0]
            } else {
                try await connection.query(sql, parameters)
            }
        return try rows.map(decodePublication)
    }

    /// The publications `filter` asks for, in its order, after `cursor`: every browse, the
    /// author's own list and the administrator's all read through here.
    static func publications(
        _ filter: PublicationFilter, after cursor: PublicationCursor?, now: Date, limit: Int,
        _ connection: PostgresConnection
    ) async throws -> [Publication] {
        var conditions = filter.includeUnpublished ? ["true"] : ["p.unpublished_at IS NULL"]
        var parameters: [any PostgresEncodable] = []
        func bind(_ value: any PostgresEncodable) -> String {
            parameters.append(value)
            return "$\(parameters.count)"
        }
        if let ids = filter.ids {
            conditions.append("p.publication_id = ANY (\(bind(ids.map(\.rawValue)))::uuid[])")
        }
        if let kind = filter.kind { conditions.append("p.kind = \(bind(kind.rawValue))") }
        if !filter.categories.isEmpty {
            conditions.append("p.categories && \(bind(filter.categories.map(\.rawValue)))::text[]")
        }
        if !filter.muscleGroups.isEmpty {
            conditions.append("p.muscle_groups && \(bind(filter.muscleGroups.map(\.rawValue)))::text[]")
        }
        if !filter.equipment.isEmpty {
            conditions.append("p.equipment <@ \(bind(filter.equipment.map(\.rawValue)))::text[]")
        }
        if !filter.difficulties.isEmpty {
            conditions.append("p.difficulty = ANY (\(bind(filter.difficulties.map(\.rawValue)))::text[])")
        }
        if let minimum = filter.minMinutes { conditions.append("p.estimated_minutes >= \(bind(minimum))") }
        if let maximum = filter.maxMinutes { conditions.append("p.estimated_minutes <= \(bind(maximum))") }
        if let author = filter.author { conditions.append("p.author_id = \(bind(author.rawValue))") }
        if !filter.words.isEmpty {
            conditions.append(
                "NOT EXISTS (SELECT FROM unnest(\(bind(filter.words))::text[]) w WHERE strpos(p.search_text, w) = 0)"
            )
        }
        let order: String
        switch filter.sort {
        case .popular:
            // In the order of publication_stats_popular_idx.
            order = "s.recent_followers DESC, s.publication_id"
            if let cursor {
                let value = bind(Int(cursor.value))
                let id = bind(cursor.id.rawValue)
                conditions.append(
                    "(s.recent_followers < \(value) OR (s.recent_followers = \(value) AND s.publication_id > \(id)))"
                )
            }
        case .newest:
            order = "p.updated_at DESC, p.publication_id"
            if let cursor {
                let value = bind(try UnixMicros.date(cursor.value, field: "page.page_token"))
                let id = bind(cursor.id.rawValue)
                conditions.append(
                    "(p.updated_at < \(value) OR (p.updated_at = \(value) AND p.publication_id > \(id)))")
            }
        }
        // One author's publications are planned for that author: a generic plan made while a few
        // authors held most publications read the whole table for anyone's.
        return try await publications(
            conditions.joined(separator: " AND "), parameters, now: now, order: order, limit: limit,
            planning: filter.author == nil ? nil : .custom, connection)
    }

    /// One publication the acting tenant may read (live, its own, or one it follows).
    static func publication(_ id: PublicationID, now: Date, _ connection: PostgresConnection) async throws
        -> Publication?
    {
        var filter = PublicationFilter()
        filter.ids = [id]
        filter.includeUnpublished = true
        return try await publications(filter, after: nil, now: now, limit: 1, connection).first
    }

    static func decodePublication(_ row: PostgresRow) throws -> Publication {
        Publication(
            id: PublicationID(rawValue: try row.decode("publication_id")),
            authorID: TenantID(rawValue: try row.decode("author_id")),
            authorName: try row.decode("author_name"),
            kind: try ExerciseSQL.enumValue(row, "kind"),
            sourceID: try row.decode("source_id"),
            version: try row.decode("version"),
            title: try row.decode("title"),
            description: try row.decode("description"),
            difficulty: try ExerciseSQL.enumValue(row, "difficulty"),
            categories: try array(String.self, row, "categories").compactMap(PublicationCategory.init),
            facets: PublicationFacets(
                muscleGroups: try array(String.self, row, "muscle_groups").compactMap(MuscleGroup.init),
                equipment: try array(String.self, row, "equipment").compactMap(Equipment.init),
                exerciseIDs: try array(UUID.self, row, "exercise_ids").map(ExerciseID.init),
                estimatedMinutes: try row.decode("estimated_minutes"),
                weeks: try row.decode("weeks"),
                sessionsPerWeek: try row.decode("sessions_per_week")),
            followers: try row.decode("followers"),
            recentFollowers: try row.decode("recent_followers"),
            publishedAt: try row.decode("published_at"),
            updatedAt: try row.decode("updated_at"),
            unpublishedAt: try row.decode("unpublished_at"))
    }

    /// An author's public profile (`spotter_public_authors`, `$1` the author) with their live
    /// publications' follower counts.
    static let authorSelect = """
        SELECT a.tenant_id, a.kind, a.display_name, a.username, a.bio, to_json(a.specialities)::text AS specialities,
               to_json(a.highlights)::text AS highlights, a.listed,
               coalesce(s.followers, 0)::integer AS followers, coalesce(s.recent, 0)::integer AS recent
        FROM spotter_public_authors(ARRAY[$1::uuid]) a
        LEFT JOIN (
            SELECT sum(st.followers) AS followers, sum(st.recent_followers) AS recent
            FROM publications p JOIN publication_stats st ON st.publication_id = p.publication_id
            WHERE p.author_id = $1 AND p.unpublished_at IS NULL
        ) s ON true
        """

    static func decodeAuthor(_ row: PostgresRow) throws -> AuthorProfile {
        AuthorProfile(
            tenantID: TenantID(rawValue: try row.decode("tenant_id")),
            kind: try ExerciseSQL.enumValue(row, "kind"),
            displayName: try row.decode("display_name"),
            username: try row.decode("username"),
            bio: try row.decode("bio"),
            specialities: try array(String.self, row, "specialities"),
            highlights: try array(String.self, row, "highlights"),
            listed: try row.decode("listed"),
            followers: try row.decode("followers"),
            recentFollowers: try row.decode("recent"))
    }

    /// A column written as `to_json(array)::text`.
    static func array<T: Decodable>(_: T.Type, _ row: PostgresRow, _ column: String) throws -> [T] {
        guard let text: String = try row.decode(column) else { return [] }
        return try JSONDecoder().decode([T].self, from: Data(text.utf8))
    }

    static func json(_ snapshot: PublishedSnapshot) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(snapshot), as: UTF8.self)
    }

    static func snapshot(_ text: String) throws -> PublishedSnapshot {
        try JSONDecoder().decode(PublishedSnapshot.self, from: Data(text.utf8))
    }

    /// A tenant's side of Discover for both exports (`ExportSQL`): every statement names the tenant.
    static func export(_ tenant: TenantID, _ connection: PostgresConnection) async throws -> ExportedDiscover {
        let id = [tenant.rawValue]
        let listing = try await connection.query(
            "SELECT listed_in_directory, to_json(highlights)::text AS highlights FROM tenants WHERE tenant_id = $1", id
        ).single
        var versions: [UUID: [ExportedPublication.Version]] = [:]
        for row in try await connection.query(
            """
            SELECT publication_id, version, published_at, content::text AS content FROM publication_versions
            WHERE author_id = $1
              -- Found by the author's publications (publications_author_id_kind_source_id_key).
              AND publication_id IN (SELECT publication_id FROM publications WHERE author_id = $1)
            ORDER BY publication_id, version
            """, id)
        {
            versions[try row.decode("publication_id"), default: []].append(
                ExportedPublication.Version(
                    version: try row.decode("version"), publishedAt: try row.decode("published_at"),
                    snapshot: try snapshot(try row.decode("content"))))
        }
        let publications = try await connection.query(
            """
            SELECT publication_id, kind, source_id, title, description, difficulty,
                   to_json(categories)::text AS categories, published_at, updated_at, unpublished_at
            FROM publications WHERE author_id = $1 ORDER BY published_at, publication_id
            """, id
        ).map { row in
            let publication: UUID = try row.decode("publication_id")
            return ExportedPublication(
                id: PublicationID(rawValue: publication), kind: try ExerciseSQL.enumValue(row, "kind"),
                sourceID: try row.decode("source_id"), title: try row.decode("title"),
                description: try row.decode("description"), difficulty: try ExerciseSQL.enumValue(row, "difficulty"),
                categories: try array(String.self, row, "categories").compactMap(PublicationCategory.init),
                publishedAt: try row.decode("published_at"), updatedAt: try row.decode("updated_at"),
                unpublishedAt: try row.decode("unpublished_at"), versions: versions[publication] ?? [])
        }
        let follows = try await connection.query(
            """
            SELECT publication_id, kind, version, copy_id, followed_at FROM publication_follows
            WHERE tenant_id = $1 ORDER BY followed_at, publication_id
            """, id
        ).map(decodeFollow)
        return ExportedDiscover(
            listedInDirectory: try listing?.decode("listed_in_directory") ?? false,
            highlights: try listing.map { try array(String.self, $0, "highlights") } ?? [],
            publications: publications, follows: follows)
    }

    static func decodeFollow(_ row: PostgresRow) throws -> PublicationFollow {
        PublicationFollow(
            publicationID: PublicationID(rawValue: try row.decode("publication_id")),
            kind: try ExerciseSQL.enumValue(row, "kind"), version: try row.decode("version"),
            copyID: try row.decode("copy_id"), followedAt: try row.decode("followed_at"))
    }
}
