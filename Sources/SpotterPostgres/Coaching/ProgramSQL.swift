import Foundation
import Postgres
import SpotterCore

/// Reading and writing programs and their days.
enum ProgramSQL {
    /// Stores a program under `id`, or finds it stored with the same content (a retried create,
    /// an import run again): `inserted` says which. Another program under the id is refused.
    static func create(
        _ tenant: TenantID, _ id: ProgramID, _ content: ProgramContent, now: Date, _ connection: PostgresConnection
    ) async throws -> (program: Program, inserted: Bool) {
        try await requireTemplates(tenant, content, connection)
        let inserted =
            try await connection.query(
                """
                INSERT INTO programs (tenant_id, program_id, name, notes, weeks, created_at, updated_at)
                VALUES ($1, $2, $3, $4, $5, $6, $6)
                ON CONFLICT (tenant_id, program_id) DO NOTHING
                """,
                [tenant.rawValue, id.rawValue, content.name, content.notes, content.weeks, now]
            ).affectedRows == 1
        if inserted { try await insertDays(tenant, id, content, connection) }
        // A retried create answers with what it stored the first time.
        guard let program = try await load([(tenant, id)], connection).first, program.content == content else {
            throw SpotterError.alreadyExists(field: "program_id", reason: "is already used by a different program")
        }
        return (program, inserted)
    }

    static let select = """
        SELECT p.tenant_id, p.program_id, p.name, p.notes, p.weeks, p.version, p.created_at, p.updated_at
        FROM programs p
        """

    /// Live programs by owner and id, with their days and template names, in the order asked.
    static func load(_ keys: [(TenantID, ProgramID)], _ connection: PostgresConnection) async throws -> [Program] {
        guard !keys.isEmpty else { return [] }
        let tenants = keys.map(\.0.rawValue)
        let ids = keys.map(\.1.rawValue)
        let rows = try await connection.query(
            select + """
                 JOIN unnest($1::uuid[], $2::uuid[]) WITH ORDINALITY AS k(tenant_id, program_id, position)
                  ON k.tenant_id = p.tenant_id AND k.program_id = p.program_id
                WHERE p.deleted_at IS NULL
                ORDER BY k.position
                """,
            [tenants, ids]
        )
        let days = try await connection.query(
            """
            SELECT d.tenant_id, d.program_id, d.week, d.weekday, d.template_id, coalesce(t.name, '') AS template_name
            FROM program_days d
            JOIN unnest($1::uuid[], $2::uuid[]) AS k(tenant_id, program_id)
              ON k.tenant_id = d.tenant_id AND k.program_id = d.program_id
            LEFT JOIN templates t ON t.tenant_id = d.tenant_id AND t.template_id = d.template_id
            ORDER BY d.week, d.weekday
            """,
            [tenants, ids]
        )
        var byProgram: [[UUID]: [(ProgramDay, String)]] = [:]
        for row in days {
            let key: [UUID] = [try row.decode("tenant_id"), try row.decode("program_id")]
            let day = ProgramDay(
                week: try row.decode("week"), weekday: try row.decode("weekday"),
                templateID: TemplateID(rawValue: try row.decode("template_id")))
            byProgram[key, default: []].append((day, try row.decode("template_name")))
        }
        return try rows.map { row in
            let key: [UUID] = [try row.decode("tenant_id"), try row.decode("program_id")]
            let entries = byProgram[key] ?? []
            var names: [TemplateID: String] = [:]
            for (day, name) in entries { names[day.templateID] = name }
            return Program(
                id: ProgramID(rawValue: key[1]),
                ownerID: TenantID(rawValue: key[0]),
                content: ProgramContent(
                    name: try row.decode("name"), notes: try row.decode("notes"), weeks: try row.decode("weeks"),
                    days: entries.map(\.0)),
                version: try row.decode("version"),
                createdAt: try row.decode("created_at"),
                updatedAt: try row.decode("updated_at"),
                templateNames: names
            )
        }
    }

    /// Refuses days naming templates the tenant does not have, by path.
    static func requireTemplates(_ tenant: TenantID, _ content: ProgramContent, _ connection: PostgresConnection)
        async throws
    {
        let ids = Array(Set(content.days.map(\.templateID.rawValue)))
        let found = Set(
            try await connection.query(
                "SELECT template_id FROM templates WHERE tenant_id = $1 AND template_id = ANY($2::uuid[]) AND deleted_at IS NULL",
                [tenant.rawValue, ids]
            ).map { try $0.decode("template_id") as UUID })
        // Named by their week and weekday: the days are in week order here, not the request's.
        var validator = Validator()
        for id in content.days.map(\.templateID).uniqued() where !found.contains(id.rawValue) {
            let days = content.days.filter { $0.templateID == id }.map { "week \($0.week) day \($0.weekday)" }
            validator.add(
                "program.days.template_id", "no template \(id) among yours (\(days.joined(separator: ", ")))")
        }
        try validator.validate()
    }

    static func insertDays(
        _ tenant: TenantID, _ id: ProgramID, _ content: ProgramContent, _ connection: PostgresConnection
    )
        async throws
    {
        try await connection.query(
            """
            INSERT INTO program_days (tenant_id, program_id, week, weekday, template_id)
            SELECT $1, $2, t.week, t.weekday, t.template_id
            FROM unnest($3::int[], $4::int[], $5::uuid[]) AS t(week, weekday, template_id)
            """,
            [
                tenant.rawValue, id.rawValue, content.days.map(\.week), content.days.map(\.weekday),
                content.days.map(\.templateID.rawValue),
            ]
        )
    }
}
