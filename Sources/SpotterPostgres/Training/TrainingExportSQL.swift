import Foundation
import Postgres
import SpotterCore

/// A tenant's training data in bulk, for `spotterctl export` (runs as the admin role, so every
/// statement names the tenant).
enum TrainingExportSQL {
    static func load(_ tenant: TenantID, _ connection: PostgresConnection) async throws
        -> (exercises: [Exercise], templates: [ExportedTemplate], workouts: [ExportedWorkout])
    {
        let exercises = try await connection.query(
            """
            SELECT exercise_id, name, category, muscle_group, equipment, instructions, NULL::text AS big_three,
                   archived_at, version, created_at, updated_at, true AS custom
            FROM exercises WHERE tenant_id = $1 AND deleted_at IS NULL
            ORDER BY lower(name), exercise_id
            """,
            [tenant.rawValue]
        ).map(ExerciseSQL.decode)

        let templateRows = try await connection.query(
            PostgresTemplateStore.select + " WHERE tenant_id = $1 AND deleted_at IS NULL ORDER BY created_at",
            [tenant.rawValue]
        )
        let items = try await PostgresTemplateStore.items(
            tenant, try templateRows.map { try $0.decode("template_id") as UUID }, connection)
        let templates = try templateRows.map { ExportedTemplate(try PostgresTemplateStore.decode($0, items: items)) }

        return (exercises, templates, try await workouts(tenant, connection))
    }

    private static func workouts(_ tenant: TenantID, _ connection: PostgresConnection) async throws
        -> [ExportedWorkout]
    {
        let rows = try await connection.query(
            """
            SELECT workout_id, name, started_at, duration_seconds, notes, template_id, template_version,
                   exercise_count, set_count, rep_count, volume_kg, version, created_at, updated_at
            FROM workouts WHERE tenant_id = $1 AND deleted_at IS NULL
            ORDER BY started_at, workout_id
            """,
            [tenant.rawValue]
        )
        let exerciseRows = try await connection.query(
            """
            SELECT we.workout_id, we.exercise_id, we.notes, coalesce(c.name, x.name, '') AS name
            FROM workout_exercises we
            LEFT JOIN catalog_exercises c ON c.exercise_id = we.exercise_id
            LEFT JOIN exercises x ON x.tenant_id = we.tenant_id AND x.exercise_id = we.exercise_id
            WHERE we.tenant_id = $1
            ORDER BY we.workout_id, we.position
            """,
            [tenant.rawValue]
        )
        let setRows = try await connection.query(
            """
            SELECT workout_id, exercise_position, set_type, reps, weight_kg, rpe, rest_seconds, note
            FROM workout_sets WHERE tenant_id = $1
            ORDER BY workout_id, exercise_position, position
            """,
            [tenant.rawValue]
        )
        var exercises: [UUID: [WorkoutExercise]] = [:]
        var names: [UUID: [ExerciseID: String]] = [:]
        for row in exerciseRows {
            let workout: UUID = try row.decode("workout_id")
            let id = ExerciseID(rawValue: try row.decode("exercise_id"))
            names[workout, default: [:]][id] = try row.decode("name")
            exercises[workout, default: []].append(
                WorkoutExercise(exerciseID: id, notes: try row.decode("notes"), sets: []))
        }
        for row in setRows {
            let workout: UUID = try row.decode("workout_id")
            let position: Int = try row.decode("exercise_position")
            exercises[workout]?[position].sets.append(try WorkoutSQL.decodeSet(row))
        }
        return try rows.map { row in
            let id: UUID = try row.decode("workout_id")
            let workout = Workout(
                id: WorkoutID(rawValue: id),
                content: WorkoutContent(
                    name: try row.decode("name"),
                    startedAt: try row.decode("started_at"),
                    durationSeconds: try row.decode("duration_seconds"),
                    notes: try row.decode("notes"),
                    templateID: try (row.decode("template_id") as UUID?).map(TemplateID.init(rawValue:)),
                    exercises: exercises[id] ?? []
                ),
                templateVersion: try row.decode("template_version"),
                exerciseNames: names[id] ?? [:],
                summary: try WorkoutSQL.decodeSummary(row),
                version: try row.decode("version"),
                createdAt: try row.decode("created_at"),
                updatedAt: try row.decode("updated_at")
            )
            return ExportedWorkout(workout)
        }
    }
}
