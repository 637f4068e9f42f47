import Foundation
import Postgres
import SpotterCore

/// Runs in `runs` (migration 0031), each beside the workout it is.
public struct PostgresRunStore: RunStore {
    private let database: SpotterDatabase
    private let workouts: PostgresWorkoutStore

    public init(database: SpotterDatabase) {
        self.database = database
        self.workouts = PostgresWorkoutStore(database: database)
    }

    public func logRun(
        _ principal: Principal, _ id: WorkoutID, _ content: WorkoutContent, samples: [FootstepSample],
        analysis: RunAnalysis, now: Date
    ) async throws -> Run {
        // The footsteps' arrays as text (a marathon's four arrays are 43,200 numbers each) before
        // the transaction begins, so it is not kept open, idle, while they are written out.
        let footsteps: [any PostgresEncodable] = [
            samples.map(\.offsetMilliseconds).postgresText, samples.map(\.latitude).postgresText,
            samples.map(\.longitude).postgresText, samples.map(\.headingDegrees).postgresText,
            try Self.json(analysis),
        ]
        return try await database.withTenant(principal) { connection in
            // Joins this transaction; a retry with the same content answers the stored workout.
            let workout: Workout
            do {
                workout = try await workouts.logWorkout(principal, id, content, now: now)
            } catch SpotterError.alreadyExists(field: "workout_id", let reason) {
                throw SpotterError.alreadyExists(field: "run_id", reason: reason)  // the request's name for it
            }
            let inserted = try await connection.query(
                """
                INSERT INTO runs (tenant_id, workout_id, offsets_ms, latitudes, longitudes, headings, analysis)
                VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb)
                ON CONFLICT (tenant_id, workout_id) DO NOTHING
                """,
                [principal.tenantID.rawValue, id.rawValue] + footsteps)
            guard let stored = try await Self.analyses(principal.tenantID, [id], connection)[id] else {
                throw SpotterError.alreadyExists(field: "run_id", reason: "is already used by a workout that is no run")
            }
            if inserted.affectedRows == 0 {
                // A retry is answered with the stored run only when it sends the same footsteps.
                let same = try await connection.query(
                    """
                    SELECT 1 FROM runs
                    WHERE tenant_id = $1 AND workout_id = $2 AND offsets_ms = $3 AND latitudes = $4
                      AND longitudes = $5 AND headings = $6
                    """,
                    [principal.tenantID.rawValue, id.rawValue] + footsteps.prefix(4))
                guard !same.isEmpty else {
                    throw SpotterError.alreadyExists(field: "run_id", reason: "is already used by a different run")
                }
            }
            return Run(workout: workout, analysis: stored)
        }
    }

    public func run(_ principal: Principal, _ id: WorkoutID) async throws -> Run? {
        try await database.withTenant(principal) { connection in
            guard let analysis = try await Self.analyses(principal.tenantID, [id], connection)[id],
                let workout = try await WorkoutSQL.load(principal.tenantID, id, connection)
            else { return nil }
            return Run(workout: workout, analysis: analysis)
        }
    }

    public func runs(_ principal: Principal, before: Date?, beforeID: WorkoutID?, limit: Int) async throws -> [Run] {
        try await database.withTenant(principal) { connection in
            let rows = try await connection.query(
                Self.select + """
                     AND ($2::timestamptz IS NULL OR w.started_at < $2
                          OR (w.started_at = $2 AND w.workout_id < $4::uuid))
                    ORDER BY w.started_at DESC, w.workout_id DESC
                    LIMIT $3
                    """,
                [principal.tenantID.rawValue, before, limit, beforeID?.rawValue])
            let analyses = try Self.decode(rows)
            let ids = try rows.map { row in WorkoutID(rawValue: try row.decode("workout_id")) }
            let loaded = try await WorkoutSQL.load(principal.tenantID, only: ids, connection)
            let byID = Dictionary(uniqueKeysWithValues: loaded.map { ($0.id, $0) })
            return ids.compactMap { id in
                guard let workout = byID[id], let analysis = analyses[id] else { return nil }
                return Run(workout: workout, analysis: analysis)
            }
        }
    }

    /// The analyses of the live runs among `ids`.
    private static func analyses(_ tenant: TenantID, _ ids: [WorkoutID], _ connection: PostgresConnection)
        async throws -> [WorkoutID: RunAnalysis]
    {
        try decode(
            try await connection.query(
                select + " AND r.workout_id = ANY($2::uuid[])", [tenant.rawValue, ids.map(\.rawValue)]))
    }

    /// The live runs of the tenant $1 with their analyses; callers add conditions.
    private static let select = """
        SELECT r.workout_id, r.analysis::text AS analysis
        FROM runs r
        JOIN workouts w ON w.tenant_id = r.tenant_id AND w.workout_id = r.workout_id
        WHERE r.tenant_id = $1 AND w.deleted_at IS NULL
        """

    private static func decode(_ rows: PostgresRows) throws -> [WorkoutID: RunAnalysis] {
        var analyses: [WorkoutID: RunAnalysis] = [:]
        for row in rows {
            analyses[WorkoutID(rawValue: try row.decode("workout_id"))] = try analysis(row)
        }
        return analyses
    }

    /// A row's `analysis` column, read as text (`analysis::text`).
    static func analysis(_ row: PostgresRow) throws -> RunAnalysis {
        try JSONDecoder().decode(RunAnalysis.self, from: Data((try row.decode("analysis") as String).utf8))
    }

    private static func json(_ analysis: RunAnalysis) throws -> String {
        String(decoding: try JSONEncoder().encode(analysis), as: UTF8.self)
    }
}
