import Foundation
import Postgres
import SpotterCore

/// Writing and reading a workout's rows: the workout, its exercises and its sets.
enum WorkoutSQL {
    /// Inserts the exercises and sets of `content` under an existing workout row.
    static func insertChildren(
        _ tenant: TenantID,
        _ id: WorkoutID,
        _ content: WorkoutContent,
        _ connection: PostgresConnection
    ) async throws {
        try await connection.query(
            """
            WITH w AS (SELECT $1::uuid AS tenant_id, $2::uuid AS workout_id, $3::timestamptz AS started_at),
            \(children)
            SELECT 1
            """,
            childParameters(tenant, id, content)
        )
    }

    /// Inserts a new workout with its exercises and sets in one statement; `false` when a workout
    /// with this id already exists (then nothing is written).
    static func insert(
        _ tenant: TenantID,
        _ id: WorkoutID,
        _ content: WorkoutContent,
        summary: WorkoutSummary,
        templateVersion: Int64?,
        now: Date,
        _ connection: PostgresConnection
    ) async throws -> Bool {
        let workout: [any PostgresEncodable] = [
            content.name, content.durationSeconds, content.notes, content.templateID?.rawValue, templateVersion,
            summary.exerciseCount, summary.setCount, summary.repCount, summary.volume,
            PostgresBytes(content.fingerprint), now,
        ]
        let rows = try await connection.query(
            """
            WITH w AS (
                INSERT INTO workouts (tenant_id, workout_id, started_at, name, duration_seconds, notes, template_id,
                                      template_version, exercise_count, set_count, rep_count, volume_kg,
                                      log_fingerprint, created_at, updated_at)
                VALUES ($1, $2, $3, $19, $20, $21, $22, $23, $24, $25, $26, $27, $28, $29, $29)
                ON CONFLICT (tenant_id, workout_id) DO NOTHING
                RETURNING tenant_id, workout_id, started_at
            ),
            \(children)
            SELECT count(*)::int AS inserted FROM w
            """,
            childParameters(tenant, id, content) + workout
        )
        return try rows.single?.decode("inserted") == 1
    }

    /// The exercise and set inserts, fed by a CTE `w(tenant_id, workout_id, started_at)` and the
    /// arrays of `childParameters` ($4–$18): two statements' worth of rows in one round trip.
    private static let children = """
        e AS (
            INSERT INTO workout_exercises (tenant_id, workout_id, position, exercise_id, notes, section, circuit)
            SELECT w.tenant_id, w.workout_id, t.position - 1, t.exercise_id, t.notes, t.section, t.circuit
            FROM w, unnest($4::uuid[], $5::text[], $6::text[], $7::int[])
                WITH ORDINALITY AS t(exercise_id, notes, section, circuit, position)
        ),
        s AS (
            INSERT INTO workout_sets (tenant_id, workout_id, exercise_position, position, exercise_id, started_at,
                                      set_type, reps, weight_kg, rpe, rest_seconds, note, duration_seconds,
                                      distance_m)
            SELECT w.tenant_id, w.workout_id, t.exercise_position, t.position, t.exercise_id, w.started_at,
                   t.set_type, t.reps, t.weight_kg, t.rpe, t.rest_seconds, t.note, t.duration_seconds, t.distance_m
            FROM w, unnest($8::int[], $9::int[], $10::uuid[], $11::text[], $12::int[], $13::numeric[],
                           $14::numeric[], $15::int[], $16::text[], $17::int[], $18::int[])
                AS t(exercise_position, position, exercise_id, set_type, reps, weight_kg, rpe, rest_seconds, note,
                     duration_seconds, distance_m)
        )
        """

    /// $1–$3: tenant, workout, start; $4–$18: the exercises' and sets' columns as arrays.
    private static func childParameters(_ tenant: TenantID, _ id: WorkoutID, _ content: WorkoutContent)
        -> [any PostgresEncodable]
    {
        var exercisePositions: [Int] = []
        var positions: [Int] = []
        var exerciseIDs: [UUID] = []
        var types: [String] = []
        var reps: [Int] = []
        var weights: [Mass?] = []
        var rpes: [Decimal?] = []
        var rests: [Int?] = []
        var notes: [String] = []
        var durations: [Int?] = []
        var distances: [Int?] = []
        for (exerciseIndex, exercise) in content.exercises.enumerated() {
            for (setIndex, set) in exercise.sets.enumerated() {
                exercisePositions.append(exerciseIndex)
                positions.append(setIndex)
                exerciseIDs.append(exercise.exerciseID.rawValue)
                types.append(set.type.rawValue)
                reps.append(set.reps)
                weights.append(set.weight)
                rpes.append(set.rpe)
                rests.append(set.restSeconds)
                notes.append(set.note)
                durations.append(set.durationSeconds)
                distances.append(set.distanceMeters)
            }
        }
        return [
            tenant.rawValue, id.rawValue, content.startedAt, content.exercises.map(\.exerciseID.rawValue),
            content.exercises.map(\.notes), content.exercises.map(\.section.rawValue), content.exercises.map(\.circuit),
            exercisePositions, positions, exerciseIDs, types, reps, weights, rpes, rests, notes, durations, distances,
        ]
    }

    /// The live workout `id` with every set, or `nil`.
    static func load(_ tenant: TenantID, _ id: WorkoutID, _ connection: PostgresConnection) async throws -> Workout? {
        try await load(tenant, only: [id], connection).first
    }

    /// Live workouts with every set: those of `ids`, or all of the tenant's when `ids` is `nil`;
    /// oldest first. Three statements in one round trip whatever the number of workouts.
    ///
    /// Named workouts are read by one primary-key lookup per id: each id's rows come from a
    /// `LATERAL` subquery (`OFFSET 0` keeps it apart) ordered as the primary key is, so no other
    /// index can serve it as cheaply. With `workout_id = ANY(ids)`, a tenant whose rows came after
    /// the table's last ANALYZE is estimated at one row, every index on `tenant_id` then costs the
    /// same, and PostgreSQL went through all of the tenant's sets in another index's order,
    /// filtering them: a sync pull of one change took 28 ms instead of 3 (Benchmarks/README.md,
    /// "The sync slowdown (part 6)").
    static func load(_ tenant: TenantID, only ids: [WorkoutID]?, _ connection: PostgresConnection) async throws
        -> [Workout]
    {
        if ids?.isEmpty == true { return [] }
        // Fragments of constant SQL; the ids themselves are always a parameter.
        let parameters: [any PostgresEncodable] =
            ids.map { [tenant.rawValue, $0.map(\.rawValue)] } ?? [tenant.rawValue]
        /// The `columns` of `table`'s rows (`found`) of the tenant (`$1`) and, when there are ids, of
        /// the workouts `$2` (each read in `keyOrder`, the primary key's columns after the
        /// workout), with `joins`, that pass `condition`, in `order`.
        func select(
            _ columns: String, from table: String, keyOrder: String, joins: String = "",
            where condition: String = "TRUE", orderBy order: String
        ) -> String {
            guard ids != nil else {
                return """
                    SELECT \(columns) FROM \(table) AS found \(joins)
                    WHERE found.tenant_id = $1 AND \(condition) ORDER BY \(order)
                    """
            }
            return """
                SELECT \(columns)
                FROM (SELECT DISTINCT id FROM unnest($2::uuid[]) AS id) AS wanted
                CROSS JOIN LATERAL (
                    SELECT * FROM \(table) WHERE tenant_id = $1 AND workout_id = wanted.id
                    ORDER BY \(keyOrder) OFFSET 0) AS found
                \(joins)
                WHERE \(condition)
                ORDER BY \(order)
                """
        }
        let statements: [(sql: String, parameters: [any PostgresEncodable])] = [
            select(
                """
                workout_id, name, started_at, duration_seconds, notes, template_id, template_version,
                exercise_count, set_count, rep_count, volume_kg, version, created_at, updated_at
                """,
                from: "workouts", keyOrder: "workout_id", where: "deleted_at IS NULL",
                orderBy: "started_at, workout_id"),
            select(
                """
                found.workout_id, found.exercise_id, found.notes, found.section, found.circuit,
                coalesce(c.name, x.name, '') AS name
                """,
                from: "workout_exercises", keyOrder: "position",
                joins: """
                    LEFT JOIN catalog_exercises c ON c.exercise_id = found.exercise_id
                    LEFT JOIN exercises x ON x.tenant_id = found.tenant_id AND x.exercise_id = found.exercise_id
                    """,
                orderBy: "found.workout_id, found.position"),
            select(
                "workout_id, exercise_position, \(setColumns())", from: "workout_sets",
                keyOrder: "exercise_position, position", orderBy: "workout_id, exercise_position, position"),
        ].map { ($0, parameters) }
        // The three in one round trip. With ids, under their generic plans: each reads every id's
        // rows by the primary key whatever the ids, but a plan for the ids given is estimated
        // cheaper than one for ten unknown ids (`unnest`'s guess), so PostgreSQL planned all three
        // afresh on every call, 1.2 ms against 0.08 ms to run them (a GetWorkout; each page of a
        // sync pull).
        let answers =
            ids == nil
            ? try await connection.pipeline(statements) : try await connection.pipeline(statements, planning: .generic)
        let (rows, exerciseRows, setRows) = (answers[0], answers[1], answers[2])
        guard !rows.isEmpty else { return [] }
        var exercises: [UUID: [WorkoutExercise]] = [:]
        var names: [UUID: [ExerciseID: String]] = [:]
        for row in exerciseRows {
            let workout: UUID = try row.decode("workout_id")
            let exercise = ExerciseID(rawValue: try row.decode("exercise_id"))
            names[workout, default: [:]][exercise] = try row.decode("name")
            exercises[workout, default: []].append(
                WorkoutExercise(
                    exerciseID: exercise, notes: try row.decode("notes"), sets: [],
                    section: try ExerciseSQL.enumValue(row, "section"), circuit: try row.decode("circuit")))
        }
        for row in setRows {
            let workout: UUID = try row.decode("workout_id")
            let position: Int = try row.decode("exercise_position")
            exercises[workout]?[position].sets.append(try decodeSet(row))
        }
        return try rows.map { row in
            let workout: UUID = try row.decode("workout_id")
            return Workout(
                id: WorkoutID(rawValue: workout),
                content: WorkoutContent(
                    name: try row.decode("name"),
                    startedAt: try row.decode("started_at"),
                    durationSeconds: try row.decode("duration_seconds"),
                    notes: try row.decode("notes"),
                    templateID: try (row.decode("template_id") as UUID?).map(TemplateID.init(rawValue:)),
                    exercises: exercises[workout] ?? []
                ),
                templateVersion: try row.decode("template_version"),
                exerciseNames: names[workout] ?? [:],
                summary: try decodeSummary(row),
                version: try row.decode("version"),
                createdAt: try row.decode("created_at"),
                updatedAt: try row.decode("updated_at")
            )
        }
    }

    /// The `workout_sets` columns `decodeSet` reads, to select with an optional table alias.
    static func setColumns(_ alias: String = "") -> String {
        ["set_type", "reps", "weight_kg", "rpe", "rest_seconds", "note", "duration_seconds", "distance_m"]
            .map { alias + $0 }.joined(separator: ", ")
    }

    static func decodeSet(_ row: PostgresRow) throws -> WorkoutSet {
        WorkoutSet(
            reps: try row.decode("reps"),
            weight: try row.decode("weight_kg"),
            rpe: try row.decode("rpe"),
            restSeconds: try row.decode("rest_seconds"),
            note: try row.decode("note"),
            type: try ExerciseSQL.enumValue(row, "set_type"),
            durationSeconds: try row.decode("duration_seconds"),
            distanceMeters: try row.decode("distance_m")
        )
    }

    static func decodeSummary(_ row: PostgresRow) throws -> WorkoutSummary {
        WorkoutSummary(
            exerciseCount: try row.decode("exercise_count"),
            setCount: try row.decode("set_count"),
            repCount: try row.decode("rep_count"),
            volume: try row.decode("volume_kg") as Mass
        )
    }

    /// The version of the live template `id` (the tenant's own, or one a coach assigned), or
    /// `invalidArgument` naming `field`.
    static func templateVersion(_ tenant: TenantID, _ id: TemplateID, field: String, _ connection: PostgresConnection)
        async throws -> Int64
    {
        guard let visible = try await PostgresTemplateStore.visible(tenant, id, connection) else {
            throw SpotterError.invalid(field, "no such template")
        }
        return visible.version
    }
}
