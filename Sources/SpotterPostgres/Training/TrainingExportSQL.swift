import Foundation
import Postgres
import SpotterCore

/// A tenant's whole export document in bulk. Every statement names the tenant, so the same SQL
/// serves `spotterctl export` (the admin role) and the tenant's own `ExportAccount` (under
/// row-level security).
enum ExportSQL {
    /// The document without its workouts; `nil` when the tenant does not exist. The caller has set
    /// `spotter.tenant_id` (the names of coaches, clients and commenters come from
    /// `spotter_linked_parties()`, which answers for the transaction's tenant). Its statements read
    /// all of one tenant's rows, once per export: they are planned for the tenant
    /// (`PostgresConnection.Planning.custom`), never with a generic plan made for the statistics'
    /// average tenant, which reads whole tables when a few tenants hold most rows.
    static func header(_ tenant: TenantID, now: Date, _ connection: PostgresConnection) async throws
        -> TenantExport?
    {
        try await connection.planned(.custom) { try await unplannedHeader(tenant, now: now, connection) }
    }

    private static func unplannedHeader(_ tenant: TenantID, now: Date, _ connection: PostgresConnection)
        async throws -> TenantExport?
    {
        let id = [tenant.rawValue]
        guard
            let profileRow = try await connection.query(
                PostgresProfileStore.selectProfile + " WHERE t.tenant_id = $1", id
            ).single
        else { return nil }
        let sessions = try await SessionSQL.live(tenant: tenant, now: now, connection)
        let emails = try await connection.query(
            """
            SELECT kind, recipient, subject, status, created_at, sent_at
            FROM email_outbox WHERE tenant_id = $1 ORDER BY created_at
            """,
            id
        ).map { row in
            ExportedEmail(
                kind: try row.decode("kind"),
                recipient: try row.decode("recipient"),
                subject: try row.decode("subject"),
                status: try row.decode("status"),
                createdAt: try row.decode("created_at"),
                sentAt: try row.decode("sent_at")
            )
        }
        let exercises = try await connection.query(
            ExerciseSQL.custom + " WHERE tenant_id = $1 AND deleted_at IS NULL ORDER BY lower(name), exercise_id", id
        ).map(ExerciseSQL.decode)
        let templateRows = try await connection.query(
            PostgresTemplateStore.select + " WHERE tenant_id = $1 AND deleted_at IS NULL ORDER BY created_at", id)
        let items = try await PostgresTemplateStore.items(
            tenant, try templateRows.map { try $0.decode("template_id") as UUID }, connection)
        let templates = try templateRows.map { ExportedTemplate(try PostgresTemplateStore.decode($0, items: items)) }
        let devices = try await PostgresSyncStore.devices(tenant, connection)
        let feedback = try await connection.query(FeedbackSQL.select + " WHERE tenant_id = $1 ORDER BY created_at", id)
            .map(FeedbackSQL.decode)
        // The tier in force when exported: one that has expired is the free tier, as everywhere else.
        var profile = try PostgresProfileStore.decodeProfile(profileRow)
        if profile.tier.effective(at: now) != profile.tier.tier { profile.tier = TierGrant(tier: .free) }
        return TenantExport(
            exportedAt: now,
            profile: profile,
            sessions: sessions,
            devices: devices,
            emails: emails,
            feedback: feedback,
            exercises: exercises,
            templates: templates,
            coaching: try await CoachingExportSQL.load(tenant, connection),
            discover: try await DiscoverSQL.export(tenant, connection),
            measurements: try await connection.query(
                PostgresBodyStore.select + " WHERE tenant_id = $1 AND deleted_at IS NULL ORDER BY metric, measured_on",
                id
            ).map(PostgresBodyStore.decode)
        )
    }

    /// Live workouts with every set, oldest first, after `cursor`: four statements a page.
    static func workouts(
        _ tenant: TenantID, after cursor: HistoryCursor?, limit: Int, _ connection: PostgresConnection
    ) async throws -> [ExportedWorkout] {
        let ids = try await connection.query(
            """
            SELECT workout_id FROM workouts
            WHERE tenant_id = $1 AND deleted_at IS NULL
              AND ($2::timestamptz IS NULL OR (started_at, workout_id) > ($2, $3::uuid))
            ORDER BY started_at, workout_id
            LIMIT $4
            """,
            [tenant.rawValue, cursor?.startedAt, cursor?.id.rawValue, limit]
        ).map { WorkoutID(rawValue: try $0.decode("workout_id")) }
        guard !ids.isEmpty else { return [] }
        return try await exported(tenant, try await WorkoutSQL.load(tenant, only: ids, connection), connection)
    }

    /// `workouts` as the export writes them, each run with its footsteps and analysis: the
    /// positions a device recorded are the lifter's data too.
    static func exported(_ tenant: TenantID, _ workouts: [Workout], _ connection: PostgresConnection) async throws
        -> [ExportedWorkout]
    {
        // The arrays as JSON, whose null stands for a footstep without a position or heading.
        let rows = try await connection.query(
            """
            SELECT workout_id, analysis::text AS analysis, to_json(offsets_ms)::text AS offsets,
                   to_json(latitudes)::text AS latitudes, to_json(longitudes)::text AS longitudes,
                   to_json(headings)::text AS headings
            FROM runs WHERE tenant_id = $1 AND workout_id = ANY($2::uuid[])
            """,
            [tenant.rawValue, workouts.map(\.id.rawValue)])
        let decoder = JSONDecoder()
        func json<T: Decodable>(_ row: PostgresRow, _ column: String, as: T.Type) throws -> T {
            try decoder.decode(T.self, from: Data((try row.decode(column) as String).utf8))
        }
        var runs: [WorkoutID: ExportedWorkout.ExportedRun] = [:]
        for row in rows {
            let offsets = try json(row, "offsets", as: [Int64].self)
            let latitudes = try json(row, "latitudes", as: [Double?].self)
            let longitudes = try json(row, "longitudes", as: [Double?].self)
            let headings = try json(row, "headings", as: [Double?].self)
            runs[WorkoutID(rawValue: try row.decode("workout_id"))] = ExportedWorkout.ExportedRun(
                samples: offsets.indices.map {
                    FootstepSample(
                        offsetMilliseconds: offsets[$0], latitude: latitudes[$0], longitude: longitudes[$0],
                        headingDegrees: headings[$0])
                },
                analysis: try PostgresRunStore.analysis(row))
        }
        return workouts.map { ExportedWorkout($0, run: runs[$0.id]) }
    }
}
