import Foundation
import Postgres
import SpotterCore

/// `CoachingStore` on PostgreSQL. Every method runs in a transaction acting as the principal's
/// tenant; a coach's reads of a client rely on the coach-side policies of migration 0008.
public struct PostgresCoachingStore: CoachingStore {
    private let database: SpotterDatabase

    public init(database: SpotterDatabase) {
        self.database = database
    }

    // MARK: Links

    public func linking<T: Sendable>(_ principal: Principal, _ body: (any LinkTransaction) async throws -> T)
        async throws -> T
    {
        try await database.withTenant(principal) { connection in
            try await body(PostgresLinkTransaction(connection: connection, actor: principal.actingTenantID))
        }
    }

    public func inOneTransaction<T: Sendable>(_ principal: Principal, _ body: () async throws -> T)
        async throws -> T
    {
        try await database.withTenant(principal) { _ in try await body() }
    }

    public func links(_ principal: Principal, includeClosed: Bool) async throws -> [CoachLink] {
        try await database.withTenant(principal) { connection in
            try await connection.query(
                PostgresLinkTransaction.select + """
                     WHERE (l.tenant_id = $1 OR l.coach_id = $1)
                      AND ($2 OR l.status IN ('pending', 'active'))
                    ORDER BY l.created_at DESC, l.link_id
                    LIMIT 500
                    """,
                [principal.tenantID.rawValue, includeClosed]
            ).map(PostgresLinkTransaction.decode)
        }
    }

    public func coachCoverage(_ principal: Principal) async throws -> [TenantID: (tier: TierGrant, clientsBefore: Int)]
    {
        try await database.withTenant(principal) { connection in
            var coverage: [TenantID: (tier: TierGrant, clientsBefore: Int)] = [:]
            for row in try await connection.query(
                "SELECT coach_id, tier, tier_expires_at, clients_before FROM spotter_my_coaches_coverage()")
            {
                coverage[TenantID(rawValue: try row.decode("coach_id"))] = (
                    TierGrant(
                        tier: try ExerciseSQL.enumValue(row, "tier"), expiresAt: try row.decode("tier_expires_at")),
                    try row.decode("clients_before")
                )
            }
            return coverage
        }
    }

    public func tenant(username: String) async throws -> (TenantID, TenantKind)? {
        try await database.withoutTenantAutocommit { connection in
            guard
                let row = try await connection.query(
                    "SELECT tenant_id, kind FROM spotter_tenant_for_username($1)", [username]
                ).single
            else { return nil }
            return (TenantID(rawValue: try row.decode("tenant_id")), try ExerciseSQL.enumValue(row, "kind"))
        }
    }

    // MARK: Invites

    public func createInvite(_ principal: Principal, _ invite: CoachInvite, codeHash: [UInt8]) async throws {
        try await database.withTenant(principal) { connection in
            try await connection.query(
                """
                INSERT INTO coach_invites (tenant_id, invite_id, code_hash, note, created_at, expires_at)
                VALUES ($1, $2, $3, $4, $5, $6)
                """,
                [
                    principal.tenantID.rawValue, invite.id, PostgresBytes(codeHash), invite.note, invite.createdAt,
                    invite.expiresAt,
                ]
            )
        }
    }

    public func invites(_ principal: Principal) async throws -> [CoachInvite] {
        try await database.withTenant(principal) { connection in
            try await connection.query(
                """
                SELECT invite_id, note, created_at, expires_at, used_at, used_by FROM coach_invites
                WHERE tenant_id = $1 AND revoked_at IS NULL
                ORDER BY created_at DESC LIMIT 100
                """,
                [principal.tenantID.rawValue]
            ).map(Self.decodeInvite)
        }
    }

    /// An invite without its code (only its hash is stored).
    static func decodeInvite(_ row: PostgresRow) throws -> CoachInvite {
        CoachInvite(
            id: try row.decode("invite_id"), code: nil, note: try row.decode("note"),
            createdAt: try row.decode("created_at"), expiresAt: try row.decode("expires_at"),
            usedAt: try row.decode("used_at"),
            usedBy: try (row.decode("used_by") as UUID?).map(TenantID.init(rawValue:)))
    }

    public func revokeInvite(_ principal: Principal, _ id: UUID, now: Date) async throws -> Bool {
        try await database.withTenant(principal) { connection in
            try await connection.query(
                """
                UPDATE coach_invites SET revoked_at = $3
                WHERE tenant_id = $1 AND invite_id = $2 AND used_at IS NULL AND revoked_at IS NULL
                """,
                [principal.tenantID.rawValue, id, now]
            ).affectedRows == 1
        }
    }

    // MARK: Access log

    public func recordAccess(
        _ principal: Principal, lifter: TenantID, kind: AccessKind, method: String, workout: WorkoutID?, now: Date
    ) async throws {
        try await database.withTenant(principal) { connection in
            // No row when the link ended meanwhile: then the read is refused too (rolled back).
            let logged = try await connection.query(
                """
                INSERT INTO coach_access_log (tenant_id, coach_id, accessed_at, data, method, workout_id)
                SELECT $1, $2, $3, $4, $5, $6 FROM coach_links
                WHERE tenant_id = $1 AND coach_id = $2 AND status = 'active'
                """,
                [lifter.rawValue, principal.actingTenantID.rawValue, now, kind.rawValue, method, workout?.rawValue]
            )
            guard logged.affectedRows == 1 else { throw SpotterError.notFound("client not found") }
        }
    }

    public func accessLog(_ principal: Principal, coach: TenantID?, after: AccessLogCursor?, limit: Int) async throws
        -> [AccessLogEntry]
    {
        try await database.withTenant(principal) { connection in
            // Planned for the values: a generic plan (any coach, any page, any length) made while a
            // few lifters held most of the log sorted the whole table for every page.
            try await connection.pipeline(
                [
                    (
                        Self.accessSelect + """
                                 WHERE a.tenant_id = $1 AND ($2::uuid IS NULL OR a.coach_id = $2)
                              AND ($3::timestamptz IS NULL OR (a.accessed_at, a.access_id) < ($3, $4::bigint))
                            ORDER BY a.accessed_at DESC, a.access_id DESC
                            LIMIT $5
                            """,
                        [principal.tenantID.rawValue, coach?.rawValue, after?.accessedAt, after?.id, limit]
                    )
                ], planning: .custom
            )[0].map(Self.decodeAccess)
        }
    }

    /// The lifter's own log rows, each with the coach's name and the workout it read, if that
    /// workout is still there (the lifter reads her own workouts).
    static let accessSelect = """
        SELECT a.access_id, a.coach_id, coalesce(t.display_name, '') AS coach_name, a.accessed_at, a.data, a.method,
          a.workout_id, w.name AS workout_name, w.started_at AS workout_started_at
        FROM coach_access_log a
        LEFT JOIN spotter_linked_parties() t ON t.tenant_id = a.coach_id
        LEFT JOIN workouts w ON w.tenant_id = a.tenant_id AND w.workout_id = a.workout_id AND w.deleted_at IS NULL
        """

    static func decodeAccess(_ row: PostgresRow) throws -> AccessLogEntry {
        AccessLogEntry(
            id: try row.decode("access_id"),
            coachID: TenantID(rawValue: try row.decode("coach_id")),
            coachName: try row.decode("coach_name"),
            accessedAt: try row.decode("accessed_at"),
            kind: try ExerciseSQL.enumValue(row, "data"),
            method: try row.decode("method"),
            workout: try (row.decode("workout_id") as UUID?).map { id in
                AccessedWorkout(
                    id: WorkoutID(rawValue: id),
                    name: try row.decode("workout_name"),
                    startedAt: try row.decode("workout_started_at"))
            }
        )
    }

    // MARK: Coach reads

    /// The estimated one-rep max of a set `s` of a client's record window.
    private static let windowE1RM = "(\(RecordSQL.e1rm("s")))"

    /// Whether the window's best of exercise `n.exercise_id` in its workout begun at
    /// `n.started_at` is a record: some earlier working set of the exercise that `counting` (a
    /// first start is no record; for an estimate, nor is the first set with one) and none `asGood`
    /// as it. Each probe reads the exercise index newest first and stops at its first match:
    /// written as `EXISTS`, a lifter with a large share of the table's sets got a sequential scan.
    private static func beatsEarlier(counting: String, asGood: String) -> String {
        func earlier(_ condition: String) -> String {
            """
            (SELECT 1 FROM workout_sets p WHERE p.tenant_id = l.tenant_id AND p.exercise_id = n.exercise_id
               AND p.started_at < n.started_at AND \(RecordSQL.working("p"))\(counting)\(condition)
             ORDER BY p.started_at DESC LIMIT 1)
            """
        }
        return "(\(earlier("")) IS NOT NULL AND \(earlier(" AND " + asGood)) IS NULL)"
    }

    public func clientFacts(_ principal: Principal, now: Date, bigThreeOnly: Bool) async throws -> [ClientFacts] {
        try await database.withTenant(principal) { connection in
            // An access-log row per client listed, at most one an hour (0071), in one statement.
            try await connection.query("SELECT spotter_log_overview($1)", [now])
            // Each subquery sees only what the client's grants let through (row-level security).
            let rows = try await connection.query(
                """
                SELECT \(PostgresLinkTransaction.columns), lt.time_zone,
                  (SELECT max(w.started_at) FROM workouts w
                   WHERE w.tenant_id = l.tenant_id AND w.deleted_at IS NULL) AS last_workout_at,
                  recent.workouts_since, recent.templates_logged, recent.recent_weeks,
                  f.program_tenant_id, f.program_id, f.started_on::text AS started_on,
                  -- A record as the New PR trophy has it: a working set heavier than every earlier
                  -- one of its exercise, or with a higher estimated one-rep max (`RecordSQL.e1rm`).
                  -- Only a window's workout that beats the window's earlier ones can be one, so
                  -- those alone are probed (each exercise's best of each workout, the window's
                  -- running maximum: a workout or two), newest first through the exercise index; a
                  -- set short of a record stops at the first earlier set at least as good. A
                  -- back-dated workout outside the window may lie between the window's: each
                  -- candidate is probed against every earlier set, not the window's alone.
                  (SELECT coalesce(c.name, x.name)
                   FROM (
                     SELECT b.*,
                       max(b.heaviest) OVER earlier AS earlier_heaviest, max(b.best) OVER earlier AS earlier_best
                     FROM (
                       SELECT s.exercise_id, s.started_at, max(s.weight_kg) AS heaviest,
                              max(\(Self.windowE1RM)) AS best
                       -- Logged since the coach last looked, even if it began before (she looked
                       -- in mid-session); begun at most two days before, so the history index
                       -- bounds it, and within the streak's window: a range bounded by values on
                       -- both sides is read through the index whatever the statistics say (with
                       -- the look's date alone a generic plan for a client with much of the
                       -- table's statistics read the whole table).
                       FROM workouts w
                       -- Each workout's sets by its key (`OFFSET 0` keeps them a lookup per
                       -- workout: joined, a client with much of the table's statistics got a hash
                       -- over it).
                       CROSS JOIN LATERAL (
                         SELECT s.exercise_id, s.started_at, s.weight_kg, s.reps, s.rpe FROM workout_sets s
                         WHERE s.tenant_id = w.tenant_id AND s.workout_id = w.workout_id
                           AND \(RecordSQL.working("s"))
                         OFFSET 0) s
                       LEFT JOIN catalog_exercises c ON c.exercise_id = s.exercise_id
                       WHERE w.tenant_id = l.tenant_id AND w.deleted_at IS NULL
                         AND w.created_at > coalesce(l.coach_seen_at, l.responded_at, l.created_at)
                         AND w.started_at > coalesce(l.coach_seen_at, l.responded_at, l.created_at) - interval '2 days'
                         AND w.started_at >= $2::timestamptz - make_interval(weeks => $4)
                         AND w.started_at < 'infinity'
                         AND (NOT $3 OR c.big_three IS NOT NULL)
                       GROUP BY s.exercise_id, s.started_at) b
                     WINDOW earlier AS (PARTITION BY b.exercise_id ORDER BY b.started_at
                                        ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)) n
                   LEFT JOIN catalog_exercises c ON c.exercise_id = n.exercise_id
                   LEFT JOIN exercises x ON x.tenant_id = l.tenant_id AND x.exercise_id = n.exercise_id
                   WHERE n.heaviest > coalesce(n.earlier_heaviest, 0)
                         AND \(Self.beatsEarlier(counting: "", asGood: "p.weight_kg >= n.heaviest"))
                      OR n.best > coalesce(n.earlier_best, 0)
                         AND \(Self.beatsEarlier(
                             counting: " AND (\(RecordSQL.e1rm("p"))) IS NOT NULL",
                             asGood: "(\(RecordSQL.e1rm("p"))) >= n.best"))
                   ORDER BY n.started_at DESC LIMIT 1) AS new_record,
                  date_trunc('week', $2::timestamptz AT TIME ZONE lt.time_zone)::date - DATE '1970-01-01' AS this_week
                FROM coach_links l
                JOIN spotter_linked_parties() lt ON lt.tenant_id = l.tenant_id
                LEFT JOIN program_follows f ON f.tenant_id = l.tenant_id
                -- This week's workouts and the weeks of the streak window, in one pass over the
                -- window's workouts (each pass is checked against the grant by row-level security).
                -- With a program begun this week, this week's count starts with the program, as
                -- its planned days do: "3 of 1 planned" counted the days before it. A program that
                -- starts later has not begun: the week counts whole ("0" hid three workouts).
                LEFT JOIN LATERAL (
                  SELECT count(*) FILTER (
                           WHERE w.started_at >= greatest(
                                   date_trunc('week', $2::timestamptz AT TIME ZONE lt.time_zone),
                                   CASE WHEN f.started_on <= ($2::timestamptz AT TIME ZONE lt.time_zone)::date
                                        THEN f.started_on::timestamp END) AT TIME ZONE lt.time_zone)::int AS workouts_since,
                         -- The templates those were logged from, for adherence (matched to the
                         -- week's planned days in Swift).
                         string_agg(w.template_id::text, ',') FILTER (
                           WHERE w.started_at >= greatest(
                                   date_trunc('week', $2::timestamptz AT TIME ZONE lt.time_zone),
                                   CASE WHEN f.started_on <= ($2::timestamptz AT TIME ZONE lt.time_zone)::date
                                        THEN f.started_on::timestamp END) AT TIME ZONE lt.time_zone
                             AND w.template_id IS NOT NULL) AS templates_logged,
                         string_agg(
                           (date_trunc('week', w.started_at AT TIME ZONE lt.time_zone)::date - DATE '1970-01-01')::text,
                           ',') AS recent_weeks
                  FROM workouts w
                  -- Bounded on both sides, so the planner takes the window for a narrow range (an
                  -- index scan) even when the statistics give each tenant most of the table; with
                  -- the lower bound alone it read the whole table once per client.
                  WHERE w.tenant_id = l.tenant_id AND w.deleted_at IS NULL
                    AND w.started_at >= $2::timestamptz - make_interval(weeks => $4)
                    AND w.started_at < 'infinity'
                ) recent ON true
                JOIN spotter_linked_parties() ct ON ct.tenant_id = l.coach_id
                WHERE l.coach_id = $1 AND l.status = 'active'
                ORDER BY lower(lt.display_name), l.tenant_id
                """,
                [principal.tenantID.rawValue, now, bigThreeOnly, WeeklyStreak.clientListWeeks]
            )
            let follows: [(TenantID, ProgramID)] = try rows.compactMap { row in
                guard let owner: UUID = try row.decode("program_tenant_id"), let id: UUID = try row.decode("program_id")
                else { return nil }
                return (TenantID(rawValue: owner), ProgramID(rawValue: id))
            }
            var programs: [[UUID]: ProgramContent] = [:]
            for program in try await ProgramSQL.load(follows, connection) {
                programs[[program.ownerID.rawValue, program.id.rawValue]] = program.content
            }
            return try rows.map { row in
                var follow: (content: ProgramContent, startedOn: Date)?
                if let owner: UUID = try row.decode("program_tenant_id"), let id: UUID = try row.decode("program_id"),
                    let content = programs[[owner, id]], let start: String = try row.decode("started_on")
                {
                    follow = (content, try ProgramSchedule.date(start, field: "started_on"))
                }
                return ClientFacts(
                    link: try PostgresLinkTransaction.decode(row),
                    timeZone: try row.decode("time_zone"),
                    lastWorkoutAt: try row.decode("last_workout_at"),
                    workoutsSince: try row.decode("workouts_since"),
                    templatesLogged: (try row.decode("templates_logged", as: String?.self) ?? "").split(separator: ",")
                        .compactMap { UUID(uuidString: String($0)).map(TemplateID.init) },
                    follow: follow,
                    newRecordExercise: try row.decode("new_record"),
                    recentWeeks: (try row.decode("recent_weeks", as: String?.self) ?? "").split(separator: ",")
                        .compactMap { Int($0) },
                    thisWeek: try row.decode("this_week")
                )
            }
        }
    }

    public func markSeen(_ principal: Principal, lifter: TenantID, now: Date) async throws {
        try await database.withTenant(principal) { connection in
            try await connection.query(
                """
                UPDATE coach_links SET coach_seen_at = $3
                WHERE tenant_id = $1 AND coach_id = $2 AND status = 'active'
                """,
                [lifter.rawValue, principal.actingTenantID.rawValue, now]
            )
        }
    }

    // MARK: Programs

    public func createProgram(_ principal: Principal, _ id: ProgramID, _ content: ProgramContent, now: Date)
        async throws -> Program
    {
        try await database.withTenant(principal) { connection in
            try await ProgramSQL.create(principal.tenantID, id, content, now: now, connection).program
        }
    }

    public func updateProgram(
        _ principal: Principal, _ id: ProgramID, _ content: ProgramContent, expectedVersion: Int64?, now: Date
    ) async throws -> Program {
        let tenant = principal.tenantID
        return try await database.withTenant(principal) { connection in
            try await FeedLocks.take(connection)
            // The stored content sent again (a device saving what it read) makes no new version and
            // no feed entry, as for templates and workouts.
            if let stored = try await ProgramSQL.load([(tenant, id)], connection).first, stored.content == content,
                expectedVersion == nil || expectedVersion == stored.version
            {
                return stored
            }
            try await ProgramSQL.requireTemplates(tenant, content, connection)
            let updated = try await connection.query(
                """
                UPDATE programs SET name = $3, notes = $4, weeks = $5, updated_at = $6, version = version + 1
                WHERE tenant_id = $1 AND program_id = $2 AND deleted_at IS NULL
                  AND ($7::bigint IS NULL OR version = $7)
                """,
                [tenant.rawValue, id.rawValue, content.name, content.notes, content.weeks, now, expectedVersion]
            )
            guard updated.affectedRows == 1 else {
                let current =
                    try await connection.query(
                        "SELECT version FROM programs WHERE tenant_id = $1 AND program_id = $2 AND deleted_at IS NULL",
                        [tenant.rawValue, id.rawValue]
                    ).single?.decode("version") as Int64?
                throw VersionCheck.failure("program", expected: expectedVersion, current: current)
            }
            try await connection.query(
                "DELETE FROM program_days WHERE tenant_id = $1 AND program_id = $2", [tenant.rawValue, id.rawValue])
            try await ProgramSQL.insertDays(tenant, id, content, connection)
            try await AssignmentSQL.shareProgram(tenant, id, connection)
            return try await ProgramSQL.load([(tenant, id)], connection)[0]
        }
    }

    public func program(_ principal: Principal, _ id: ProgramID) async throws -> Program? {
        try await database.withTenant(principal) { connection in
            // The principal's own, else one an actively linked coach assigned (policies decide).
            let owner = try await connection.query(
                """
                SELECT tenant_id FROM programs
                WHERE program_id = $2 AND deleted_at IS NULL
                  AND (tenant_id = $1 OR tenant_id IN (SELECT a.tenant_id FROM assignments a
                                                       WHERE a.lifter_id = $1 AND a.program_id = $2
                                                         AND a.removed_at IS NULL))
                ORDER BY tenant_id = $1 DESC LIMIT 1
                """,
                [principal.tenantID.rawValue, id.rawValue]
            ).single.map { TenantID(rawValue: try $0.decode("tenant_id")) }
            guard let owner else { return nil }
            return try await ProgramSQL.load([(owner, id)], connection).first
        }
    }

    public func programs(_ principal: Principal) async throws -> [Program] {
        try await database.withTenant(principal) { connection in
            let ids = try await connection.query(
                """
                SELECT program_id FROM programs WHERE tenant_id = $1 AND deleted_at IS NULL
                ORDER BY lower(name), program_id LIMIT 500
                """,
                [principal.tenantID.rawValue]
            ).map { (principal.tenantID, ProgramID(rawValue: try $0.decode("program_id"))) }
            return try await ProgramSQL.load(ids, connection)
        }
    }

    public func deleteProgram(_ principal: Principal, _ id: ProgramID, now: Date) async throws -> Bool {
        try await database.withTenant(principal) { connection in
            try await FeedLocks.take(connection)
            let deleted = try await connection.query(
                """
                UPDATE programs SET deleted_at = $3, updated_at = $3, version = version + 1
                WHERE tenant_id = $1 AND program_id = $2 AND deleted_at IS NULL
                """,
                [principal.tenantID.rawValue, id.rawValue, now]
            )
            guard deleted.affectedRows == 1 else { return false }
            try await connection.query(
                """
                UPDATE assignments SET removed_at = $3
                WHERE tenant_id = $1 AND program_id = $2 AND removed_at IS NULL
                """,
                [principal.tenantID.rawValue, id.rawValue, now]
            )
            return true
        }
    }

    // MARK: Assignments and following

    static let assignmentSelect = """
        SELECT a.assignment_id, a.tenant_id, a.lifter_id, a.template_id, a.program_id, a.note, a.created_at,
               coalesce(t.name, p.name, '') AS name, coalesce(t.version, p.version, 0) AS version,
               coalesce(ct.display_name, '') AS coach_name
        FROM assignments a
        LEFT JOIN templates t ON t.tenant_id = a.tenant_id AND t.template_id = a.template_id
        LEFT JOIN programs p ON p.tenant_id = a.tenant_id AND p.program_id = a.program_id
        LEFT JOIN spotter_linked_parties() ct ON ct.tenant_id = a.tenant_id
        """

    static func decodeAssignment(_ row: PostgresRow) throws -> Assignment {
        let item: Assignment.Item =
            if let template: UUID = try row.decode("template_id") {
                .template(TemplateID(rawValue: template))
            } else {
                .program(ProgramID(rawValue: try row.decode("program_id")))
            }
        return Assignment(
            id: try row.decode("assignment_id"),
            coachID: TenantID(rawValue: try row.decode("tenant_id")),
            lifterID: TenantID(rawValue: try row.decode("lifter_id")),
            item: item,
            name: try row.decode("name"),
            version: try row.decode("version"),
            note: try row.decode("note"),
            createdAt: try row.decode("created_at"),
            coachName: try row.decode("coach_name")
        )
    }

    public func assign(_ principal: Principal, _ assignment: Assignment) async throws -> Assignment {
        try await database.withTenant(principal) { connection in
            // The client's feed gets the coach's custom exercises the assignment shares.
            try await FeedLocks.take(connection)
            let (template, program): (UUID?, UUID?) =
                switch assignment.item {
                case .template(let id): (id.rawValue, nil)
                case .program(let id): (nil, id.rawValue)
                }
            let inserted = try await connection.query(
                """
                INSERT INTO assignments (tenant_id, assignment_id, lifter_id, template_id, program_id, note, created_at)
                VALUES ($1, $2, $3, $4, $5, $6, $7)
                ON CONFLICT DO NOTHING
                """,
                [
                    principal.tenantID.rawValue, assignment.id, assignment.lifterID.rawValue, template, program,
                    assignment.note, assignment.createdAt,
                ]
            )
            guard inserted.affectedRows == 1 else {
                throw SpotterError.alreadyExists(
                    field: template == nil ? "program_id" : "template_id", reason: "is already assigned to this client")
            }
            // Shared with every client it is assigned to, this one among them (the others have theirs).
            switch assignment.item {
            case .template(let id): try await AssignmentSQL.shareTemplate(principal.tenantID, id, connection)
            case .program(let id): try await AssignmentSQL.shareProgram(principal.tenantID, id, connection)
            }
            return try Self.decodeAssignment(
                try await connection.query(
                    Self.assignmentSelect + " WHERE a.tenant_id = $1 AND a.assignment_id = $2",
                    [principal.tenantID.rawValue, assignment.id]
                ).single!)
        }
    }

    public func unassign(_ principal: Principal, _ id: UUID, now: Date) async throws -> Bool {
        try await database.withTenant(principal) { connection in
            try await connection.query(
                """
                UPDATE assignments SET removed_at = $3
                WHERE tenant_id = $1 AND assignment_id = $2 AND removed_at IS NULL
                """,
                [principal.tenantID.rawValue, id, now]
            ).affectedRows == 1
        }
    }

    public func assignments(_ principal: Principal, lifter: TenantID?) async throws -> [Assignment] {
        try await database.withTenant(principal) { connection in
            try await connection.query(
                Self.assignmentSelect + """
                     WHERE a.removed_at IS NULL AND (a.tenant_id = $1 OR a.lifter_id = $1)
                      AND coalesce(t.deleted_at, p.deleted_at) IS NULL
                      AND ($2::uuid IS NULL OR a.lifter_id = $2)
                    ORDER BY a.created_at DESC, a.assignment_id
                    LIMIT 500
                    """,
                [principal.tenantID.rawValue, lifter?.rawValue]
            ).map(Self.decodeAssignment)
        }
    }

    public func follow(_ principal: Principal, _ program: Program, startedOn: String, now: Date) async throws {
        try await database.withTenant(principal) { connection in
            try await connection.query(
                """
                INSERT INTO program_follows (tenant_id, program_tenant_id, program_id, started_on, created_at)
                VALUES ($1, $2, $3, $4::date, $5)
                ON CONFLICT (tenant_id) DO UPDATE SET program_tenant_id = excluded.program_tenant_id,
                    program_id = excluded.program_id, started_on = excluded.started_on, created_at = excluded.created_at
                """,
                [principal.tenantID.rawValue, program.ownerID.rawValue, program.id.rawValue, startedOn, now]
            )
        }
    }

    public func unfollow(_ principal: Principal) async throws -> Bool {
        try await database.withTenant(principal) { connection in
            try await connection.query(
                "DELETE FROM program_follows WHERE tenant_id = $1", [principal.tenantID.rawValue]
            ).affectedRows == 1
        }
    }

    public func followed(_ principal: Principal) async throws -> ProgramFollow? {
        try await database.withTenant(principal) { connection in
            try await Self.followed(principal.tenantID, connection)
        }
    }

    static func followed(_ tenant: TenantID, _ connection: PostgresConnection) async throws -> ProgramFollow? {
        guard
            let row = try await connection.query(
                """
                SELECT f.program_tenant_id, f.program_id, f.started_on::text AS started_on, pf.publication_id,
                       pf.version, CASE WHEN p.unpublished_at IS NULL AND p.version > pf.version THEN p.version END
                           AS latest_version
                FROM program_follows f
                -- A copy of a public program (Discover): the version taken and a later one offered.
                LEFT JOIN publication_follows pf ON pf.tenant_id = f.tenant_id AND pf.kind = 'program'
                                                AND pf.copy_id = f.program_id
                LEFT JOIN publications p ON p.publication_id = pf.publication_id
                WHERE f.tenant_id = $1
                """,
                [tenant.rawValue]
            ).single
        else { return nil }
        let key = (
            TenantID(rawValue: try row.decode("program_tenant_id")),
            ProgramID(rawValue: try row.decode("program_id"))
        )
        let offer = try (row.decode("publication_id") as UUID?).map { publication in
            PublicationOffer(
                publicationID: PublicationID(rawValue: publication), version: try row.decode("version"),
                latestVersion: try row.decode("latest_version"))
        }
        return try await ProgramSQL.load([key], connection).first.map {
            ProgramFollow(program: $0, startedOn: try row.decode("started_on"), publication: offer)
        }
    }

    // MARK: Comments

    static let commentSelect = """
        SELECT c.comment_id, c.tenant_id, c.workout_id, c.exercise_position, c.set_position, c.author_id, c.body,
               c.created_at, coalesce(t.display_name, '') AS author_name
        FROM workout_comments c
        LEFT JOIN spotter_linked_parties() t ON t.tenant_id = c.author_id
        """

    static func decodeComment(_ row: PostgresRow) throws -> WorkoutComment {
        let tenant: UUID = try row.decode("tenant_id")
        let author: UUID = try row.decode("author_id")
        return WorkoutComment(
            id: try row.decode("comment_id"),
            workoutID: WorkoutID(rawValue: try row.decode("workout_id")),
            exerciseIndex: try row.decode("exercise_position"),
            setIndex: try row.decode("set_position"),
            authorID: TenantID(rawValue: author),
            authorSide: author == tenant ? .lifter : .coach,
            authorName: try row.decode("author_name"),
            body: try row.decode("body"),
            createdAt: try row.decode("created_at")
        )
    }

    public func addComment(_ principal: Principal, _ comment: WorkoutComment, workoutVersion version: Int64?)
        async throws -> WorkoutComment?
    {
        try await database.withTenant(principal) { connection in
            try await connection.query(
                """
                INSERT INTO workout_comments (tenant_id, comment_id, workout_id, exercise_position, set_position,
                                              author_id, body, created_at)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
                """,
                [
                    principal.tenantID.rawValue, comment.id, comment.workoutID.rawValue, comment.exerciseIndex,
                    comment.setIndex, comment.authorID.rawValue, comment.body, comment.createdAt,
                ]
            )
            // The insert's feed trigger holds the lifter's feed counter now, which a workout's
            // delete or replace takes with its UPDATE and keeps to its end, reading the comments
            // after it. So this check sees a delete or replace that committed first, and one that
            // comes later sees this comment (and deletes or moves it).
            let live = try await connection.query(
                """
                SELECT EXISTS (SELECT FROM workouts
                               WHERE tenant_id = $1 AND workout_id = $2 AND deleted_at IS NULL
                                 AND ($3::bigint IS NULL OR version = $3)) AS live
                """,
                [principal.tenantID.rawValue, comment.workoutID.rawValue, version]
            ).single!.decode("live", as: Bool.self)
            guard live else {
                try await connection.query(
                    "DELETE FROM workout_comments WHERE tenant_id = $1 AND comment_id = $2",
                    [principal.tenantID.rawValue, comment.id])
                return nil
            }
            return try Self.decodeComment(
                try await connection.query(
                    Self.commentSelect + " WHERE c.tenant_id = $1 AND c.comment_id = $2",
                    [principal.tenantID.rawValue, comment.id]
                ).single!)
        }
    }

    public func comments(_ principal: Principal, _ workout: WorkoutID) async throws -> [WorkoutComment] {
        try await database.withTenant(principal) { connection in
            try await connection.query(
                Self.commentSelect + """
                     WHERE c.tenant_id = $1 AND c.workout_id = $2
                    ORDER BY c.created_at, c.comment_id
                    """,
                [principal.tenantID.rawValue, workout.rawValue]
            ).map(Self.decodeComment)
        }
    }

    public func deleteComment(_ principal: Principal, _ id: UUID) async throws -> CommentDeletion {
        try await database.withTenant(principal) { connection in
            // The delete's policy lets a coach delete only their own comments; the read's shows
            // them the lifter's too (never another coach's). The outer query reads the snapshot from
            // before the delete, so a deleted comment is also one that was seen.
            let row = try await connection.query(
                """
                WITH gone AS (
                    DELETE FROM workout_comments WHERE tenant_id = $1 AND comment_id = $2 RETURNING 1
                )
                SELECT EXISTS (SELECT 1 FROM gone) AS deleted,
                       EXISTS (SELECT 1 FROM workout_comments WHERE tenant_id = $1 AND comment_id = $2) AS seen
                """,
                [principal.tenantID.rawValue, id]
            ).single!
            if try row.decode("deleted", as: Bool.self) { return .deleted }
            return try row.decode("seen", as: Bool.self) ? .notTheAuthor : .notFound
        }
    }
}
