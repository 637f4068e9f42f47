import Foundation
import Postgres
import SpotterCore

/// What a coach assigns may use the coach's custom exercises: they are shared with the client
/// (copied into the client's account under the same ids, 0064_assigned_custom_exercises.sql) when
/// the template or program is assigned, and again when an assigned one is edited.
enum AssignmentSQL {
    /// Shares the custom exercises of template `id` with every client it is assigned to, alone or
    /// in a program. Call it once the template's items are written.
    static func shareTemplate(_ tenant: TenantID, _ id: TemplateID, _ connection: PostgresConnection) async throws {
        try await connection.query(
            """
            SELECT spotter_share_exercises(lifter_id, ARRAY[$2::uuid]) FROM (
                SELECT DISTINCT a.lifter_id FROM assignments a
                WHERE a.tenant_id = $1 AND a.removed_at IS NULL
                  AND (a.template_id = $2 OR EXISTS (
                      SELECT FROM program_days d
                      WHERE d.tenant_id = $1 AND d.program_id = a.program_id AND d.template_id = $2))
            ) AS clients
            """,
            [tenant.rawValue, id.rawValue]
        )
    }

    /// Shares the custom exercises of program `id`'s templates with every client it is assigned to.
    /// Call it once the program's days are written.
    static func shareProgram(_ tenant: TenantID, _ id: ProgramID, _ connection: PostgresConnection) async throws {
        try await connection.query(
            """
            SELECT spotter_share_exercises(
                       a.lifter_id,
                       ARRAY(SELECT DISTINCT d.template_id FROM program_days d
                             WHERE d.tenant_id = $1 AND d.program_id = $2))
            FROM assignments a
            WHERE a.tenant_id = $1 AND a.program_id = $2 AND a.removed_at IS NULL
            """,
            [tenant.rawValue, id.rawValue]
        )
    }
}
