import Foundation
import Postgres
import SpotterCore

/// `TransferStore` on PostgreSQL, under row-level security: the caller's own rows only.
public struct PostgresTransferStore: TransferStore {
    private let database: SpotterDatabase
    private let workouts: PostgresWorkoutStore

    public init(database: SpotterDatabase) {
        self.database = database
        workouts = PostgresWorkoutStore(database: database)
    }

    public func exportHeader(_ principal: Principal, now: Date) async throws -> TenantExport {
        try await database.withTenant(principal.tenantID) { connection in
            guard let header = try await ExportSQL.header(principal.tenantID, now: now, connection) else {
                throw SpotterError.notFound("account not found")
            }
            return header
        }
    }

    public func exportWorkouts(_ principal: Principal, after cursor: HistoryCursor?, limit: Int) async throws
        -> [ExportedWorkout]
    {
        try await database.withTenant(principal.tenantID) { connection in
            try await ExportSQL.workouts(principal.tenantID, after: cursor, limit: limit, connection)
        }
    }

    public func exerciseIndex(_ principal: Principal) async throws -> [Exercise] {
        try await database.withTenant(principal.tenantID) { connection in
            try await connection.query(ExerciseSQL.all(tenant: "$1"), [principal.tenantID.rawValue])
                .map(ExerciseSQL.decode)
        }
    }

    public func templateIDs(_ principal: Principal) async throws -> Set<TemplateID> {
        try await database.withTenant(principal.tenantID) { connection in
            Set(
                try await connection.query(
                    """
                    SELECT template_id FROM templates WHERE tenant_id = $1 AND deleted_at IS NULL
                    UNION
                    SELECT template_id FROM workouts WHERE tenant_id = $1 AND template_id IS NOT NULL
                    """,
                    [principal.tenantID.rawValue]
                ).map { TemplateID(rawValue: try $0.decode("template_id")) })
        }
    }

    public func createProgram(_ principal: Principal, _ id: ProgramID, _ content: ProgramContent, now: Date)
        async throws -> Bool
    {
        try await database.withTenant(principal) { connection in
            try await ProgramSQL.create(principal.tenantID, id, content, now: now, connection).inserted
        }
    }

    public func logWorkouts(_ principal: Principal, _ items: [(WorkoutID, WorkoutContent)], now: Date) async throws
        -> [ImportOutcome]
    {
        // One transaction: each logWorkout below joins it. Workouts already stored are told apart
        // by their log fingerprint here, in one statement, rather than by a failed insert each.
        try await database.withTenant(principal.tenantID) { connection in
            var stored: [WorkoutID: [UInt8]?] = [:]
            for row in try await connection.query(
                """
                SELECT workout_id, CASE WHEN deleted_at IS NULL THEN log_fingerprint END AS fingerprint
                FROM workouts WHERE tenant_id = $1 AND workout_id = ANY($2::uuid[])
                """,
                [principal.tenantID.rawValue, items.map(\.0.rawValue)]
            ) {
                let fingerprint: PostgresBytes? = try row.decode("fingerprint")
                // `updateValue`: assigning nil through the subscript would drop a deleted one's key.
                stored.updateValue(fingerprint?.bytes, forKey: WorkoutID(rawValue: try row.decode("workout_id")))
            }
            // A workout edited since it was logged no longer has its log's fingerprint: compare
            // those with what is stored now (an export taken after the edit imports as unchanged).
            let edited = items.filter { id, content in
                stored[id].map { $0 != nil && $0 != content.fingerprint } ?? false
            }.map(\.0)
            var current: [WorkoutID: [UInt8]] = [:]
            if !edited.isEmpty {
                for workout in try await WorkoutSQL.load(principal.tenantID, only: edited, connection) {
                    current[workout.id] = workout.content.fingerprint
                }
            }
            var outcomes: [ImportOutcome] = []
            outcomes.reserveCapacity(items.count)
            for (id, content) in items {
                if case .some(.none) = stored[id] {
                    outcomes.append(.deleted)
                    continue
                }
                if let fingerprint = stored[id] {
                    let same = fingerprint == content.fingerprint || current[id] == content.fingerprint
                    outcomes.append(same ? .unchanged : .conflict)
                    continue
                }
                do {
                    _ = try await workouts.logWorkout(principal, id, content, now: now)
                    outcomes.append(.added)
                } catch SpotterError.alreadyExists {
                    outcomes.append(.conflict)
                }
            }
            return outcomes
        }
    }
}
