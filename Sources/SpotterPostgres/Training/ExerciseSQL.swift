import Foundation
import Postgres
import SpotterCore

/// Exercise statements shared by the training stores: one view over the built-in catalog and the
/// tenant's custom exercises.
enum ExerciseSQL {
    /// Custom exercises in the columns `decode` reads; add the WHERE clause.
    static let custom = """
        SELECT exercise_id, name, category, muscle_group, equipment, instructions, NULL::text AS big_three,
               archived_at, version, created_at, updated_at, true AS custom
        FROM exercises
        """

    /// Built-in and one tenant's live custom exercises with the same columns; `custom` tells them
    /// apart. `tenant` is the parameter holding the tenant (a coach's client view names the client,
    /// while the transaction acts as the coach).
    static func all(tenant: String, includingDeleted: Bool = false) -> String {
        """
        SELECT exercise_id, name, category, muscle_group, equipment, instructions, big_three,
               NULL::timestamptz AS archived_at, 0::bigint AS version, NULL::timestamptz AS created_at,
               NULL::timestamptz AS updated_at, false AS custom
        FROM catalog_exercises
        UNION ALL
        \(custom) WHERE tenant_id = \(tenant)::uuid\(includingDeleted ? "" : " AND deleted_at IS NULL")
        """
    }

    static func decode(_ row: PostgresRow) throws -> Exercise {
        let custom: Bool = try row.decode("custom")
        return Exercise(
            id: ExerciseID(rawValue: try row.decode("exercise_id")),
            name: try row.decode("name"),
            category: try enumValue(row, "category"),
            muscleGroup: try enumValue(row, "muscle_group"),
            equipment: try enumValue(row, "equipment"),
            instructions: try row.decode("instructions"),
            custom: custom
                ? CustomExercise(
                    archivedAt: try row.decode("archived_at"),
                    version: try row.decode("version"),
                    createdAt: try row.decode("created_at"),
                    updatedAt: try row.decode("updated_at")
                ) : nil,
            bigThree: try (row.decode("big_three") as String?).flatMap(BigThreeLift.init(rawValue:))
        )
    }

    /// What may keep a custom exercise deleted after it was used: a workout or template edited
    /// again (sending it back changed, its notes or a set, must not be refused for that exercise),
    /// or the template a workout is logged from.
    enum KeptBy {
        case workout(WorkoutID)
        case template(TemplateID)

        /// The rows of the object's exercises, as `(table, key column, id)`.
        var uses: (table: String, column: String, id: UUID) {
            switch self {
            case .workout(let id): ("workout_exercises", "workout_id", id.rawValue)
            case .template(let id): ("template_items", "template_id", id.rawValue)
            }
        }
    }

    /// The current names of `ids` that are built-in or live custom exercises of the acting tenant,
    /// or deleted ones the object `keptBy` uses.
    static func names(_ ids: [ExerciseID], keptBy: KeptBy? = nil, _ connection: PostgresConnection)
        async throws -> [ExerciseID: String]
    {
        // Logging a workout sends the plain form (the same-SQL benchmark proxy sends it too).
        let live =
            keptBy.map {
                """
                (x.deleted_at IS NULL OR EXISTS (SELECT FROM \($0.uses.table) u
                    WHERE u.tenant_id = x.tenant_id AND u.\($0.uses.column) = $2 AND u.exercise_id = x.exercise_id))
                """
            } ?? "x.deleted_at IS NULL"
        var parameters: [any PostgresEncodable] = [Array(Set(ids.map(\.rawValue)))]
        if let keptBy { parameters.append(keptBy.uses.id) }
        let rows = try await connection.query(
            """
            SELECT id, coalesce(c.name, x.name) AS name
            FROM unnest($1::uuid[]) AS id
            LEFT JOIN catalog_exercises c ON c.exercise_id = id
            LEFT JOIN exercises x
                ON x.tenant_id = spotter_current_tenant() AND x.exercise_id = id AND \(live)
            """,
            parameters
        )
        var names: [ExerciseID: String] = [:]
        for row in rows {
            if let name: String = try row.decode("name") { names[ExerciseID(rawValue: try row.decode("id"))] = name }
        }
        return names
    }

    /// Names of `ids`, or `invalidArgument` naming the path of every id that is not an exercise (a
    /// deleted custom exercise counts only where the object `keptBy` uses it, and is named so).
    static func requireNames(
        _ ids: [ExerciseID],
        keptBy: KeptBy? = nil,
        path: (Int) -> String,
        _ connection: PostgresConnection
    ) async throws -> [ExerciseID: String] {
        let names = try await names(ids, keptBy: keptBy, connection)
        let missing = ids.filter { names[$0] == nil }
        guard !missing.isEmpty else { return names }
        // Only a refusal reads which of them were the tenant's and deleted.
        let deleted = Set(
            try await connection.query(
                """
                SELECT exercise_id FROM exercises
                WHERE tenant_id = spotter_current_tenant() AND exercise_id = ANY($1::uuid[]) AND deleted_at IS NOT NULL
                """,
                [missing.map(\.rawValue)]
            ).map { ExerciseID(rawValue: try $0.decode("exercise_id")) })
        var validator = Validator()
        for (index, id) in ids.enumerated() where names[id] == nil {
            validator.add(
                path(index),
                deleted.contains(id)
                    ? "is an exercise you deleted: what used it keeps it, nothing new can (choose another)"
                    : "no such exercise")
        }
        try validator.validate()
        return names
    }

    /// What `requireNames` would refuse of `ids` (by their index in the object, which `path`
    /// names), as violations to add to another refusal; none when all are exercises.
    static func refusals(
        _ principal: Principal, _ ids: [Int: ExerciseID], keptBy: KeptBy?, path: @escaping (Int) -> String,
        _ database: SpotterDatabase
    ) async throws -> [FieldViolation] {
        let indices = ids.keys.sorted()
        guard !indices.isEmpty else { return [] }
        do {
            _ = try await database.withTenant(principal) { connection in
                try await requireNames(
                    indices.map { ids[$0]! }, keptBy: keptBy, path: { path(indices[$0]) }, connection)
            }
            return []
        } catch SpotterError.invalidArgument(let violations) {
            return violations
        }
    }

    static func enumValue<T: RawRepresentable>(_ row: PostgresRow, _ column: String) throws -> T
    where T.RawValue == String {
        let text: String = try row.decode(column)
        guard let value = T(rawValue: text) else {
            throw PostgresError(kind: .decoding, message: "unknown \(column) '\(text)'", column: column)
        }
        return value
    }
}

/// The answer for a versioned row that was not changed: gone, or changed since the client read it.
enum VersionCheck {
    static func failure(
        _ what: String,
        expected: Int64?,
        current: Int64?
    ) -> SpotterError {
        guard let current else { return .notFound("\(what) not found") }
        return .failedPrecondition(
            "expected_version: the \(what) is at version \(current), not \(expected ?? current); read it again"
        )
    }
}
