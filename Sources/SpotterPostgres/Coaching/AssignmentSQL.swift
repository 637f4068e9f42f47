import Foundation
import Postgres
import SpotterCore

/// The rule that what a coach assigns uses built-in exercises only (a client's log can name only
/// built-in exercises or the client's own), kept when an assigned template or program is edited.
enum AssignmentSQL {
    /// Whether the tenant's template is assigned to a client, alone or in an assigned program.
    static func isAssigned(_ tenant: TenantID, template: TemplateID, _ connection: PostgresConnection) async throws
        -> Bool
    {
        try await connection.query(
            """
            SELECT EXISTS (
                SELECT FROM assignments a
                WHERE a.tenant_id = $1 AND a.removed_at IS NULL
                  AND (a.template_id = $2 OR EXISTS (
                      SELECT FROM program_days d
                      WHERE d.tenant_id = $1 AND d.program_id = a.program_id AND d.template_id = $2))
            ) AS assigned
            """,
            [tenant.rawValue, template.rawValue]
        ).single?.decode("assigned") ?? false
    }

    /// Refuses custom exercises in the items of a template that is assigned to a client.
    static func checkTemplate(
        _ tenant: TenantID, _ id: TemplateID, _ content: TemplateContent, _ connection: PostgresConnection
    ) async throws {
        let custom = content.items.indices.filter { !content.items[$0].exerciseID.isCatalog }
        guard !custom.isEmpty, try await isAssigned(tenant, template: id, connection) else { return }
        throw SpotterError.invalidArgument(
            custom.map {
                FieldViolation(
                    field: "template.items[\($0)].exercise_id",
                    reason: "the template is assigned to a client, and \(Assignment.builtInOnly)")
            })
    }

    /// Refuses days naming templates with custom exercises in a program that is assigned to a client.
    static func checkProgram(
        _ tenant: TenantID, _ id: ProgramID, _ content: ProgramContent, _ connection: PostgresConnection
    ) async throws {
        let assigned =
            try await connection.query(
                """
                SELECT EXISTS (SELECT FROM assignments
                               WHERE tenant_id = $1 AND program_id = $2 AND removed_at IS NULL) AS assigned
                """,
                [tenant.rawValue, id.rawValue]
            ).single?.decode("assigned") ?? false
        guard assigned else { return }
        let names = try await connection.query(
            """
            SELECT DISTINCT t.name FROM template_items i
            JOIN templates t ON t.tenant_id = i.tenant_id AND t.template_id = i.template_id
            WHERE i.tenant_id = $1 AND i.template_id = ANY($2::uuid[])
              AND i.exercise_id::text NOT LIKE 'c0000000-0000-4000-8000-%'
            ORDER BY t.name
            """,
            [tenant.rawValue, content.days.map(\.templateID.rawValue)]
        ).map { try $0.decode("name") as String }
        guard !names.isEmpty else { return }
        throw SpotterError.invalid(
            "program.days.template_id",
            "template '\(names.joined(separator: "', '"))' uses custom exercises; the program is assigned to a "
                + "client, and \(Assignment.builtInOnly)")
    }
}
