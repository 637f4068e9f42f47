import Foundation
import Postgres
import SpotterCore

/// `TemplateStore` on PostgreSQL, under row-level security.
public struct PostgresTemplateStore: TemplateStore {
    private let database: SpotterDatabase

    public init(database: SpotterDatabase) {
        self.database = database
    }

    public func createTemplate(_ principal: Principal, _ id: TemplateID, _ content: TemplateContent, now: Date)
        async throws -> Template
    {
        let tenant = principal.tenantID
        return try await database.withTenant(principal) { connection in
            let names = try await Self.requireNames(content, connection)
            let inserted = try await connection.query(
                """
                INSERT INTO templates (tenant_id, template_id, name, notes, created_at, updated_at, circuit_rounds,
                                       circuit_rest_seconds)
                VALUES ($1, $2, $3, $4, $5, $5, $6, $7)
                ON CONFLICT (tenant_id, template_id) DO NOTHING
                """,
                [tenant.rawValue, id.rawValue, content.name, content.notes, now] + Self.circuitParameters(content)
            )
            guard inserted.affectedRows == 1 else {
                // A retried create answers with what it stored the first time.
                guard let existing = try await Self.load(tenant, id, connection), existing.content == content else {
                    throw SpotterError.alreadyExists(
                        field: "template_id", reason: "is already used by a different template")
                }
                return existing
            }
            try await Self.insertItems(tenant, id, content, connection)
            return Template(
                id: id, content: content, archivedAt: nil, version: 1, createdAt: now, updatedAt: now,
                exerciseNames: names)
        }
    }

    /// The tenant's own template, else one an actively linked coach assigned to this lifter (alone
    /// or in a program); the policies of migration 0008 decide what is visible.
    public func template(_ principal: Principal, _ id: TemplateID) async throws -> Template? {
        try await database.withTenant(principal) { connection in
            guard let visible = try await Self.visible(principal.tenantID, id, connection) else { return nil }
            return try await Self.load(visible.owner, id, connection)
        }
    }

    /// Whose live template `id` the tenant sees, and its version: its own first, else one a coach
    /// assigned to it (alone or in a program) under an open assignment.
    static func visible(_ tenant: TenantID, _ id: TemplateID, _ connection: PostgresConnection) async throws
        -> (owner: TenantID, version: Int64)?
    {
        try await connection.query(
            """
            SELECT tenant_id, version FROM templates
            WHERE template_id = $2 AND deleted_at IS NULL
              AND (tenant_id = $1 OR tenant_id IN (
                  SELECT a.tenant_id FROM assignments a
                  WHERE a.lifter_id = $1 AND a.removed_at IS NULL
                    -- A probe of the assigned program's days (by their key), not of every day.
                    AND (a.template_id = $2 OR EXISTS (
                        SELECT FROM program_days d
                        WHERE d.tenant_id = a.tenant_id AND d.program_id = a.program_id AND d.template_id = $2))))
            ORDER BY tenant_id = $1 DESC LIMIT 1
            """,
            [tenant.rawValue, id.rawValue]
        ).single.map { (TenantID(rawValue: try $0.decode("tenant_id")), try $0.decode("version")) }
    }

    public func updateTemplate(
        _ principal: Principal, _ id: TemplateID, _ content: TemplateContent, expectedVersion: Int64?, now: Date
    ) async throws -> Template {
        let tenant = principal.tenantID
        return try await database.withTenant(principal) { connection in
            try await FeedLocks.take(connection)
            // Target weights sent back as the API showed them stay as stored; the stored content
            // sent again (a device saving what it read) makes no new version and no feed entry.
            var content = content
            if let stored = try await Self.load(tenant, id, connection) {
                content = content.keepingWeights(of: stored.content)
                if stored.content == content, expectedVersion == nil || expectedVersion == stored.version {
                    return stored
                }
            }
            _ = try await Self.requireNames(content, keptBy: id, connection)
            try await Self.change(tenant, id, expectedVersion: expectedVersion, connection) {
                try await connection.query(
                    """
                    UPDATE templates SET name = $3, notes = $4, updated_at = $5, version = version + 1,
                        circuit_rounds = $7, circuit_rest_seconds = $8
                    WHERE tenant_id = $1 AND template_id = $2 AND deleted_at IS NULL
                      AND ($6::bigint IS NULL OR version = $6)
                    """,
                    [tenant.rawValue, id.rawValue, content.name, content.notes, now, expectedVersion]
                        + Self.circuitParameters(content)
                ).affectedRows
            }
            try await connection.query(
                "DELETE FROM template_items WHERE tenant_id = $1 AND template_id = $2",
                [tenant.rawValue, id.rawValue]
            )
            try await Self.insertItems(tenant, id, content, connection)
            try await AssignmentSQL.shareTemplate(tenant, id, connection)
            return try await Self.loaded(tenant, id, connection)
        }
    }

    public func archiveTemplate(_ principal: Principal, _ id: TemplateID, archived: Bool, now: Date) async throws
        -> Template
    {
        let tenant = principal.tenantID
        return try await database.withTenant(principal) { connection in
            try await Self.change(tenant, id, expectedVersion: nil, connection) {
                try await connection.query(
                    """
                    UPDATE templates
                    SET archived_at = CASE WHEN $3 THEN coalesce(archived_at, $4) END, updated_at = $4,
                        version = version + 1
                    WHERE tenant_id = $1 AND template_id = $2 AND deleted_at IS NULL
                    """,
                    [tenant.rawValue, id.rawValue, archived, now]
                ).affectedRows
            }
            return try await Self.loaded(tenant, id, connection)
        }
    }

    public func deleteTemplate(_ principal: Principal, _ id: TemplateID, now: Date) async throws -> Bool {
        let tenant = principal.tenantID
        return try await database.withTenant(principal) { connection in
            try await FeedLocks.take(connection)
            // A day of a live program would turn into a rest day without a word, for every client
            // it is assigned to and in Discover: the program goes first, or the day.
            let programs: [String] = try await connection.query(
                """
                SELECT DISTINCT p.name FROM program_days d
                JOIN programs p ON p.tenant_id = d.tenant_id AND p.program_id = d.program_id
                WHERE d.tenant_id = $1 AND d.template_id = $2 AND p.deleted_at IS NULL
                ORDER BY p.name LIMIT 4
                """,
                [tenant.rawValue, id.rawValue]
            ).map { try $0.decode("name") }
            if !programs.isEmpty {
                let names = programs.prefix(3).map { "\"\($0)\"" }.joined(separator: ", ")
                throw SpotterError.failedPrecondition(
                    "this template is a training day of program\(programs.count > 1 ? "s" : "") \(names)"
                        + (programs.count > 3 ? " and more" : "")
                        + ": take it out of the program first, or delete the program")
            }
            let deleted = try await connection.query(
                """
                UPDATE templates SET deleted_at = $3, updated_at = $3, version = version + 1
                WHERE tenant_id = $1 AND template_id = $2 AND deleted_at IS NULL
                """,
                [tenant.rawValue, id.rawValue, now]
            )
            guard deleted.affectedRows == 1 else { return false }
            try await connection.query(
                "DELETE FROM template_items WHERE tenant_id = $1 AND template_id = $2",
                [tenant.rawValue, id.rawValue]
            )
            return true
        }
    }

    public func templates(_ principal: Principal, includeArchived: Bool, after cursor: TemplateCursor?, limit: Int)
        async throws -> [Template]
    {
        let tenant = principal.tenantID
        return try await database.withTenant(principal) { connection in
            let rows = try await connection.query(
                Self.select + """
                     WHERE tenant_id = $1 AND deleted_at IS NULL AND (archived_at IS NULL OR $2)
                      AND ($3::text IS NULL OR (lower(name), template_id) > ($3, $4::uuid))
                    ORDER BY lower(name), template_id
                    LIMIT $5
                    """,
                [tenant.rawValue, includeArchived, cursor?.name, cursor?.id.rawValue, limit]
            )
            let ids = try rows.map { row in try row.decode("template_id") as UUID }
            let items = try await Self.items(tenant, ids, connection)
            return try rows.map { row in try Self.decode(row, items: items) }
        }
    }

    static let select = """
        SELECT template_id, name, notes, archived_at, version, created_at, updated_at,
               to_json(circuit_rounds)::text AS circuit_rounds,
               to_json(circuit_rest_seconds)::text AS circuit_rest_seconds
        FROM templates
        """

    public func exerciseRefusals(_ principal: Principal, _ ids: [Int: ExerciseID], template: TemplateID?)
        async throws -> [FieldViolation]
    {
        try await ExerciseSQL.refusals(
            principal, ids, keptBy: template.map { .template($0) }, path: { "template.items[\($0)].exercise_id" },
            database)
    }

    /// `keptBy`: the template an update changes, which may keep the deleted exercises it uses.
    private static func requireNames(
        _ content: TemplateContent, keptBy template: TemplateID? = nil, _ connection: PostgresConnection
    ) async throws -> [ExerciseID: String] {
        try await ExerciseSQL.requireNames(
            content.items.map(\.exerciseID), keptBy: template.map { .template($0) },
            path: { "template.items[\($0)].exercise_id" }, connection)
    }

    /// The circuits as the two arrays of `templates`.
    private static func circuitParameters(_ content: TemplateContent) -> [any PostgresEncodable] {
        [content.circuits.map(\.rounds), content.circuits.map(\.restSeconds)]
    }

    private static func insertItems(
        _ tenant: TenantID, _ id: TemplateID, _ content: TemplateContent, _ connection: PostgresConnection
    ) async throws {
        let items = content.items
        try await connection.query(
            """
            INSERT INTO template_items (tenant_id, template_id, position, exercise_id, target_sets, reps_min, reps_max,
                                        target_rpe, rest_seconds, notes, target_duration_seconds, target_distance_m,
                                        section, circuit, target_weight_kg, target_percent)
            SELECT $1, $2, t.position - 1, t.exercise_id, t.target_sets, t.reps_min, t.reps_max, t.target_rpe,
                   t.rest_seconds, t.notes, t.target_duration_seconds, t.target_distance_m, t.section, t.circuit,
                   t.target_weight_kg, t.target_percent
            FROM unnest($3::uuid[], $4::int[], $5::int[], $6::int[], $7::numeric[], $8::int[], $9::text[], $10::int[],
                        $11::int[], $12::text[], $13::int[], $14::numeric[], $15::numeric[])
                WITH ORDINALITY AS t(exercise_id, target_sets, reps_min, reps_max, target_rpe, rest_seconds, notes,
                                     target_duration_seconds, target_distance_m, section, circuit, target_weight_kg,
                                     target_percent, position)
            """,
            [
                tenant.rawValue, id.rawValue, items.map(\.exerciseID.rawValue), items.map(\.targetSets),
                items.map(\.repsMin), items.map(\.repsMax), items.map(\.targetRPE), items.map(\.restSeconds),
                items.map(\.notes), items.map(\.targetDurationSeconds), items.map(\.targetDistanceMeters),
                items.map(\.section.rawValue), items.map(\.circuit), items.map(\.targetLoad?.weight),
                items.map(\.targetLoad?.percentOfMax),
            ]
        )
    }

    /// Runs an UPDATE of one template, or throws why nothing changed.
    private static func change(
        _ tenant: TenantID,
        _ id: TemplateID,
        expectedVersion: Int64?,
        _ connection: PostgresConnection,
        _ update: () async throws -> Int
    ) async throws {
        guard try await update() == 1 else {
            let rows = try await connection.query(
                "SELECT version FROM templates WHERE tenant_id = $1 AND template_id = $2 AND deleted_at IS NULL",
                [tenant.rawValue, id.rawValue]
            )
            throw VersionCheck.failure(
                "template", expected: expectedVersion, current: try rows.single?.decode("version"))
        }
    }

    static func load(_ tenant: TenantID, _ id: TemplateID, _ connection: PostgresConnection) async throws -> Template? {
        try await load(tenant, [id], connection).first
    }

    /// The live templates among `ids`, in no particular order. Two statements.
    static func load(_ tenant: TenantID, _ ids: [TemplateID], _ connection: PostgresConnection) async throws
        -> [Template]
    {
        let ids = ids.map(\.rawValue)
        let rows = try await connection.query(
            select + " WHERE tenant_id = $1 AND template_id = ANY($2::uuid[]) AND deleted_at IS NULL",
            [tenant.rawValue, ids]
        )
        guard !rows.isEmpty else { return [] }
        let items = try await items(tenant, ids, connection)
        return try rows.map { try decode($0, items: items) }
    }

    private static func loaded(_ tenant: TenantID, _ id: TemplateID, _ connection: PostgresConnection) async throws
        -> Template
    {
        guard let template = try await load(tenant, id, connection) else {
            throw SpotterError.notFound("template not found")
        }
        return template
    }

    /// Items of the templates, by template, in order, with exercise names.
    static func items(_ tenant: TenantID, _ ids: [UUID], _ connection: PostgresConnection) async throws
        -> [UUID: [(TemplateItem, String)]]
    {
        let rows = try await connection.query(
            """
            SELECT i.template_id, i.exercise_id, i.target_sets, i.reps_min, i.reps_max, i.target_rpe, i.rest_seconds,
                   i.notes, i.target_duration_seconds, i.target_distance_m, i.section, i.circuit, i.target_weight_kg,
                   i.target_percent,
                   coalesce(c.name, x.name, y.name, '') AS name
            FROM template_items i
            LEFT JOIN catalog_exercises c ON c.exercise_id = i.exercise_id
            LEFT JOIN exercises x ON x.tenant_id = i.tenant_id AND x.exercise_id = i.exercise_id
            -- A coach's template read by a client: the client's copy of the coach's exercise (0064).
            LEFT JOIN exercises y ON y.tenant_id = spotter_current_tenant() AND y.tenant_id <> i.tenant_id
                                 AND y.exercise_id = i.exercise_id
            WHERE i.tenant_id = $1 AND i.template_id = ANY($2::uuid[])
            ORDER BY i.template_id, i.position
            """,
            [tenant.rawValue, ids]
        )
        var items: [UUID: [(TemplateItem, String)]] = [:]
        for row in rows {
            let item = TemplateItem(
                exerciseID: ExerciseID(rawValue: try row.decode("exercise_id")),
                targetSets: try row.decode("target_sets"),
                repsMin: try row.decode("reps_min"),
                repsMax: try row.decode("reps_max"),
                targetRPE: try row.decode("target_rpe"),
                restSeconds: try row.decode("rest_seconds"),
                notes: try row.decode("notes"),
                targetDurationSeconds: try row.decode("target_duration_seconds"),
                targetDistanceMeters: try row.decode("target_distance_m"),
                section: try ExerciseSQL.enumValue(row, "section"),
                circuit: try row.decode("circuit"),
                targetLoad: TemplateLoad(
                    weight: try row.decode("target_weight_kg"), percentOfMax: try row.decode("target_percent"))
            )
            items[try row.decode("template_id"), default: []].append((item, try row.decode("name")))
        }
        return items
    }

    static func decode(_ row: PostgresRow, items: [UUID: [(TemplateItem, String)]]) throws -> Template {
        let id: UUID = try row.decode("template_id")
        let entries = items[id] ?? []
        var names: [ExerciseID: String] = [:]
        for (item, name) in entries { names[item.exerciseID] = name }
        return Template(
            id: TemplateID(rawValue: id),
            content: TemplateContent(
                name: try row.decode("name"), notes: try row.decode("notes"), items: entries.map(\.0),
                circuits: zip(
                    try DiscoverSQL.array(Int.self, row, "circuit_rounds"),
                    try DiscoverSQL.array(Int.self, row, "circuit_rest_seconds")
                ).map { TemplateCircuit(rounds: $0, restSeconds: $1) }),
            archivedAt: try row.decode("archived_at"),
            version: try row.decode("version"),
            createdAt: try row.decode("created_at"),
            updatedAt: try row.decode("updated_at"),
            exerciseNames: names
        )
    }
}
