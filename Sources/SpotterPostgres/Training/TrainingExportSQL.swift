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
            ExerciseSQL.custom + " WHERE tenant_id = $1 AND deleted_at IS NULL ORDER BY lower(name), exercise_id",
            [tenant.rawValue]
        ).map(ExerciseSQL.decode)

        let templateRows = try await connection.query(
            PostgresTemplateStore.select + " WHERE tenant_id = $1 AND deleted_at IS NULL ORDER BY created_at",
            [tenant.rawValue]
        )
        let items = try await PostgresTemplateStore.items(
            tenant, try templateRows.map { try $0.decode("template_id") as UUID }, connection)
        let templates = try templateRows.map { ExportedTemplate(try PostgresTemplateStore.decode($0, items: items)) }

        let workouts = try await WorkoutSQL.load(tenant, only: nil, connection)
        return (exercises, templates, workouts.map(ExportedWorkout.init))
    }
}
