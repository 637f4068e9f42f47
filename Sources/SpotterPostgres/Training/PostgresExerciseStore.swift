import Foundation
import Postgres
import SpotterCore

/// `ExerciseStore` on PostgreSQL: the catalog is shared, custom exercises are under RLS.
public struct PostgresExerciseStore: ExerciseStore {
    private let database: SpotterDatabase

    public init(database: SpotterDatabase) {
        self.database = database
    }

    public func exercises(_ principal: Principal, _ filter: ExerciseFilter, after cursor: ExerciseCursor?, limit: Int)
        async throws -> [Exercise]
    {
        try await database.withTenant(principal) { connection in
            try await connection.query(
                """
                SELECT * FROM (\(ExerciseSQL.all(tenant: "$10"))) e
                WHERE (custom OR NOT $1)
                  AND (archived_at IS NULL OR $2)
                  AND ($3::text IS NULL OR category = $3)
                  AND ($4::text IS NULL OR muscle_group = $4)
                  AND ($5::text IS NULL OR equipment = $5)
                  -- Any alternative whose words are all in the name, spaces and punctuation
                  -- left out of both; a word after `^` is one of the name's words, or its plural
                  -- ("Sit Ups" for "sit up") (`ExerciseFilter.searchAlternatives`).
                  AND (cardinality($6::text[]) = 0 OR EXISTS (
                    SELECT FROM unnest($6::text[]) AS alternative (words)
                    WHERE NOT EXISTS (
                      SELECT FROM unnest(string_to_array(alternative.words, ' ')) AS w (word)
                      WHERE CASE WHEN left(w.word, 1) = '^'
                        THEN NOT EXISTS (
                          SELECT FROM regexp_split_to_table(lower(name), '[[:space:][:punct:]]+') AS part (text)
                          WHERE part.text IN (substr(w.word, 2), substr(w.word, 2) || 's'))
                        ELSE strpos(regexp_replace(lower(name), '[[:space:][:punct:]]+', '', 'g'), w.word) = 0
                      END)))
                  AND ($7::text IS NULL OR (lower(name), exercise_id) > ($7, $8::uuid))
                ORDER BY lower(name), exercise_id
                LIMIT $9
                """,
                [
                    filter.customOnly, filter.includeArchived, filter.category?.rawValue, filter.muscleGroup?.rawValue,
                    filter.equipment?.rawValue, filter.searchAlternatives.map { $0.joined(separator: " ") },
                    cursor?.name, cursor?.id.rawValue, limit,
                    principal.tenantID.rawValue,
                ]
            ).map(ExerciseSQL.decode)
        }
    }

    public func exercise(_ principal: Principal, _ id: ExerciseID, includingDeleted: Bool) async throws
        -> Exercise?
    {
        try await database.withTenant(principal) { connection in
            try await Self.load(principal.tenantID, id, connection, includingDeleted: includingDeleted)
        }
    }

    public func builtInExercise(_ principal: Principal, named name: String) async throws -> Exercise? {
        try await database.withTenant(principal) { connection in
            try await connection.query(
                """
                SELECT * FROM (\(ExerciseSQL.all(tenant: "$2"))) e
                WHERE NOT custom
                  AND lower(regexp_replace(name, '[^[:alnum:]]+', '', 'g')) = lower(regexp_replace($1, '[^[:alnum:]]+', '', 'g'))
                ORDER BY lower(name) LIMIT 1
                """,
                [name, principal.tenantID.rawValue]
            ).single.map(ExerciseSQL.decode)
        }
    }

    public func createExercise(_ principal: Principal, _ id: ExerciseID, _ input: ExerciseInput, now: Date)
        async throws -> Exercise
    {
        guard !id.isCatalog else {
            throw SpotterError.alreadyExists(field: "exercise_id", reason: "is already used by another exercise")
        }
        return try await database.withTenant(principal) { connection in
            let rows = try await connection.query(
                """
                INSERT INTO exercises (tenant_id, exercise_id, name, category, muscle_group, equipment, instructions,
                                       created_at, updated_at)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)
                ON CONFLICT DO NOTHING
                """,
                [
                    principal.tenantID.rawValue, id.rawValue, input.name, input.category.rawValue,
                    input.muscleGroup.rawValue, input.equipment.rawValue, input.instructions, now,
                ]
            )
            // Not inserted: a retried create (also one sent at the same time, which waited for the
            // first to commit) answers with what is stored; anything else with the id is refused. A
            // deleted exercise keeps its id as a tombstone. With no conflict target, a name taken
            // by another exercise is also "nothing inserted" rather than a unique violation raised
            // after waiting on a concurrent identical create, whose name index entry comes first.
            guard let stored = try await Self.load(principal.tenantID, id, connection) else {
                let tombstone =
                    try await connection.query(
                        "SELECT 1 FROM exercises WHERE tenant_id = $1 AND exercise_id = $2",
                        [principal.tenantID.rawValue, id.rawValue]
                    ).rows.isEmpty == false
                throw tombstone
                    ? SpotterError.alreadyExists(
                        field: "exercise_id",
                        reason: "belongs to a deleted exercise; ids are not reused, create it with a new one")
                    : SpotterError.alreadyExists(field: "exercise.name", reason: "is already taken")
            }
            guard rows.affectedRows == 1 || (stored.isCustom && stored.input == input) else {
                throw SpotterError.alreadyExists(field: "exercise_id", reason: "is already used by another exercise")
            }
            return stored
        }
    }

    public func updateExercise(
        _ principal: Principal, _ id: ExerciseID, _ input: ExerciseInput, expectedVersion: Int64?, now: Date
    ) async throws -> Exercise {
        try await change(principal, id, expectedVersion: expectedVersion) { connection in
            try await connection.query(
                """
                UPDATE exercises
                SET name = $3, category = $4, muscle_group = $5, equipment = $6, instructions = $7,
                    updated_at = $8, version = version + 1
                WHERE tenant_id = $1 AND exercise_id = $2 AND deleted_at IS NULL
                  AND ($9::bigint IS NULL OR version = $9)
                """,
                [
                    principal.tenantID.rawValue, id.rawValue, input.name, input.category.rawValue,
                    input.muscleGroup.rawValue, input.equipment.rawValue, input.instructions, now, expectedVersion,
                ]
            ).affectedRows
        }
    }

    public func archiveExercise(_ principal: Principal, _ id: ExerciseID, archived: Bool, now: Date) async throws
        -> Exercise
    {
        try await change(principal, id, expectedVersion: nil) { connection in
            try await connection.query(
                """
                UPDATE exercises
                SET archived_at = CASE WHEN $3 THEN coalesce(archived_at, $4) END,
                    updated_at = $4, version = version + 1
                WHERE tenant_id = $1 AND exercise_id = $2 AND deleted_at IS NULL
                """,
                [principal.tenantID.rawValue, id.rawValue, archived, now]
            ).affectedRows
        }
    }

    public func deleteExercise(_ principal: Principal, _ id: ExerciseID, now: Date) async throws -> Bool {
        try await database.withTenant(principal) { connection in
            let deleted =
                try await connection.query(
                    """
                    UPDATE exercises SET deleted_at = $3, updated_at = $3, version = version + 1
                    WHERE tenant_id = $1 AND exercise_id = $2 AND deleted_at IS NULL
                    """,
                    [principal.tenantID.rawValue, id.rawValue, now]
                ).affectedRows == 1
            if !deleted, try await Self.load(principal.tenantID, id, connection)?.isCustom == false {
                throw SpotterError.failedPrecondition("built-in exercises cannot be deleted")
            }
            return deleted
        }
    }

    /// Runs an UPDATE of one custom exercise and returns it, or the reason nothing changed.
    private func change(
        _ principal: Principal,
        _ id: ExerciseID,
        expectedVersion: Int64?,
        _ update: @escaping (PostgresConnection) async throws -> Int
    ) async throws -> Exercise {
        try await database.withTenant(principal) { connection in
            let existing = try await Self.load(principal.tenantID, id, connection)
            if let existing, !existing.isCustom {
                throw SpotterError.failedPrecondition("built-in exercises cannot be changed; create a custom one")
            }
            guard try await update(connection) == 1,
                let changed = try await Self.load(principal.tenantID, id, connection)
            else {
                throw VersionCheck.failure("exercise", expected: expectedVersion, current: existing?.custom?.version)
            }
            return changed
        }
    }

    static func load(
        _ tenant: TenantID, _ id: ExerciseID, _ connection: PostgresConnection, includingDeleted: Bool = false
    ) async throws -> Exercise? {
        try await connection.query(
            "SELECT * FROM (\(ExerciseSQL.all(tenant: "$2", includingDeleted: includingDeleted))) e WHERE exercise_id = $1",
            [id.rawValue, tenant.rawValue]
        ).single.map(ExerciseSQL.decode)
    }
}
