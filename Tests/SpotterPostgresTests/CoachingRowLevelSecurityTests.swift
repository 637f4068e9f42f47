import Foundation
import Postgres
import SpotterCore
import SpotterPostgres
import SpotterTestSupport
import Testing

/// The coach-side policies of migration 0008, checked with raw SQL as `spotter_app` in a
/// transaction acting as the coach: what the service layer checks, the database refuses again.
@Suite("Coaching row-level security")
struct CoachingRowLevelSecurityTests {
    private let start = Date(timeIntervalSince1970: 1_790_000_000)

    /// A lifter with training data of every kind, a coach (Coach Pro) with no link yet, and a
    /// stranger lifter with data of their own.
    private struct Fixture {
        var lifter: Principal
        var coach: Principal
        var stranger: Principal
        var workout: WorkoutID
        var comment: UUID
    }

    private func fixture(_ database: TestDatabase) async throws -> Fixture {
        let clock = TestClock(start)
        let training = database.trainingServices(clock: clock)
        let coaching = database.coachingService(clock: clock)
        let lifter = try await database.lifter("lifter")
        let coach = try await database.lifter("coach", kind: .coach)
        let stranger = try await database.lifter("stranger")
        try await admin(
            database, "UPDATE tenants SET tier = 'coach_pro' WHERE tenant_id = $1", [coach.tenantID.rawValue])
        var workout = WorkoutID.random()
        var comment = UUID()
        for person in [lifter, stranger] {
            let custom = try await training.exercises.create(
                person, id: "",
                ExerciseDraft(
                    name: "Zercher Squat", category: .squat, muscleGroup: .quadriceps, equipment: .barbell,
                    instructions: ""))
            let heavy = try await training.workouts.log(
                person, id: "",
                workoutDraft(
                    "Heavy", at: start.addingTimeInterval(-2 * 86_400),
                    exercises: [Catalog.squat, Catalog.overheadPress, custom.id]))
            _ = try await training.workouts.log(
                person, id: "", workoutDraft("Light", at: start.addingTimeInterval(-86_400), exercises: [Catalog.squat])
            )
            let said = try await coaching.comment(
                person, workoutID: heavy.id.description, exerciseIndex: nil, setIndex: nil, body: "felt good")
            // The lifter's own program, followed.
            let template = try await training.templates.create(
                person, id: "",
                TemplateDraft(
                    name: "Day A",
                    items: [TemplateItemDraft(exerciseID: custom.id.description, targetSets: 3, repsMin: 5)]
                ))
            let program = try await coaching.createProgram(
                person, id: "",
                ProgramDraft(
                    name: "Block", weeks: 1,
                    days: [ProgramDraft.Day(week: 1, weekday: 1, templateID: template.id.description)]))
            _ = try await coaching.follow(person, programID: program.id.description, startOn: "")
            if person == lifter {
                workout = heavy.id
                comment = said.id
            }
        }
        return Fixture(lifter: lifter, coach: coach, stranger: stranger, workout: workout, comment: comment)
    }

    /// Tables with the lifter's rows, and the scopes any of which lets a coach read them.
    private static let tables: [(table: String, opens: Set<Scope>)] = [
        ("workouts", [.history, .details, .progress]),
        ("exercises", [.history, .details, .progress]),
        ("workout_exercises", [.details]),
        ("workout_sets", [.details, .progress]),
        ("workout_comments", [.details]),
        ("programs", [.history, .details]),
        ("program_days", [.history, .details]),
        ("program_follows", [.history, .details]),
        ("templates", []),
        ("template_items", []),
    ]

    @Test("a coach's transaction sees a client's rows only within an active link, and only the tables its scopes open")
    func scopesOpenTables() async throws {
        try await TestDatabase.with { database in
            let f = try await fixture(database)
            let coaching = database.coachingService(clock: TestClock(start))
            var totals: [String: Int] = [:]
            for (table, _) in Self.tables {
                totals[table] = try await database.count(
                    "SELECT count(*)::int FROM \(table) WHERE tenant_id = $1", [f.lifter.tenantID.rawValue])
                #expect(totals[table]! > 0, "the fixture has \(table) rows")
            }
            func expectVisible(_ scopes: Set<Scope>, _ step: String) async throws {
                let seen = try await database.asTenant(f.coach.tenantID) { connection in
                    var seen: [String: Int] = [:]
                    for (table, _) in Self.tables {
                        seen[table] = try await count(table, of: f.lifter.tenantID, connection)
                    }
                    return seen
                }
                for (table, opens) in Self.tables {
                    let expected = opens.isDisjoint(with: scopes) ? 0 : totals[table]!
                    #expect(seen[table] == expected, "\(step): \(table)")
                }
            }

            try await expectVisible([], "no link")
            // A pending request grants nothing, whatever scopes it names.
            _ = try await coaching.requestCoach(f.lifter, username: "coach", scopes: ["history"])
            try await expectVisible([], "pending")
            _ = try await coaching.respond(f.coach, other: f.lifter.tenantID.description, accept: true, scopes: [])
            try await expectVisible([.history], "history")
            for scopes: Set<Scope> in [[.progress], [.details], [.body], [], Set(Scope.allCases)] {
                _ = try await coaching.setScopes(
                    f.lifter, coach: f.coach.tenantID.description, scopes: scopes.map(\.rawValue))
                try await expectVisible(scopes, "scopes \(scopes.sorted().map(\.rawValue))")
            }
            // A statement that "forgot" its WHERE clause still sees only the client, never the stranger.
            let unfiltered = try await database.asTenant(f.coach.tenantID) { connection in
                try await connection.query(
                    "SELECT count(DISTINCT tenant_id)::int AS n, count(*)::int AS rows FROM workouts"
                )
                .single!
            }
            #expect(try unfiltered.decode("n", as: Int.self) == 1)
            #expect(try unfiltered.decode("rows", as: Int.self) == totals["workouts"])
            // The stranger, never linked, is invisible throughout.
            let strangers = try await database.asTenant(f.coach.tenantID) { connection in
                try await count("workouts", of: f.stranger.tenantID, connection)
            }
            #expect(strangers == 0)

            _ = try await coaching.endLink(f.lifter, other: f.coach.tenantID.description)
            try await expectVisible([], "ended")
        }
    }

    @Test("a coach cannot change a client's rows, and comments only with the details scope, as themselves")
    func coachCannotWrite() async throws {
        try await TestDatabase.with { database in
            let f = try await fixture(database)
            let coaching = database.coachingService(clock: TestClock(start))
            try await coaching.link(f.coach, f.lifter, scopes: ["history"])
            let client = f.lifter.tenantID.rawValue
            func comment(author: TenantID) async throws {
                try await database.asTenant(f.coach.tenantID) { connection in
                    try await connection.query(
                        """
                        INSERT INTO workout_comments (tenant_id, comment_id, workout_id, author_id, body, created_at)
                        VALUES ($1, $2, $3, $4, 'from the coach', now())
                        """,
                        [client, UUID(), f.workout.rawValue, author.rawValue])
                }
            }
            // Without the details scope the coach cannot comment.
            let refused = await #expect(throws: PostgresError.self) { try await comment(author: f.coach.tenantID) }
            #expect(refused?.sqlState == PostgresError.Code.insufficientPrivilege)
            #expect(refused?.message.contains("row-level security") == true)

            _ = try await coaching.setScopes(
                f.lifter, coach: f.coach.tenantID.description, scopes: Scope.allCases.map(\.rawValue))
            // With every scope: reads yes, changes no (0 rows affected).
            let before = try await snapshot(database, f.lifter.tenantID)
            try await database.asTenant(f.coach.tenantID) { connection in
                for statement in [
                    "UPDATE workouts SET name = 'Hijacked', notes = 'x' WHERE tenant_id = $1",
                    "DELETE FROM workouts WHERE tenant_id = $1",
                    "UPDATE workout_sets SET reps = 99 WHERE tenant_id = $1",
                    "DELETE FROM workout_sets WHERE tenant_id = $1",
                    "DELETE FROM workout_exercises WHERE tenant_id = $1",
                    "UPDATE exercises SET name = 'Hijacked' WHERE tenant_id = $1",
                    // Only their own comments; the lifter's is not.
                    "DELETE FROM workout_comments WHERE tenant_id = $1",
                    "UPDATE program_follows SET started_on = '2000-01-03' WHERE tenant_id = $1",
                    "DELETE FROM programs WHERE tenant_id = $1",
                ] {
                    let result = try await connection.query(statement, [client])
                    #expect(result.affectedRows == 0, "\(statement)")
                }
                #expect(try await count("workouts", of: f.lifter.tenantID, connection) > 0)
            }
            #expect(try await snapshot(database, f.lifter.tenantID) == before)
            // Comments cannot be edited by anyone (no UPDATE privilege at all).
            let rewritten = await #expect(throws: PostgresError.self) {
                try await database.asTenant(f.coach.tenantID) { connection in
                    try await connection.query(
                        "UPDATE workout_comments SET body = 'Hijacked' WHERE tenant_id = $1", [client])
                }
            }
            #expect(rewritten?.sqlState == PostgresError.Code.insufficientPrivilege)
            // Nor can the coach add rows under the lifter's tenant.
            let inserted = await #expect(throws: PostgresError.self) {
                try await database.asTenant(f.coach.tenantID) { connection in
                    try await connection.query(
                        """
                        INSERT INTO workouts (tenant_id, workout_id, name, started_at, duration_seconds, exercise_count,
                                              set_count, rep_count, volume_kg, log_fingerprint, created_at, updated_at)
                        VALUES ($1, $2, 'Planted', now(), 60, 0, 0, 0, 0, '\\x00', now(), now())
                        """,
                        [client, UUID()])
                }
            }
            #expect(inserted?.sqlState == PostgresError.Code.insufficientPrivilege)

            // With details the coach comments as themselves, never in the lifter's name.
            try await comment(author: f.coach.tenantID)
            let impersonated = await #expect(throws: PostgresError.self) {
                try await comment(author: f.lifter.tenantID)
            }
            #expect(impersonated?.sqlState == PostgresError.Code.insufficientPrivilege)
            // Nor can the lifter post under the coach's name on their own workout.
            let forged = await #expect(throws: PostgresError.self) {
                try await database.asTenant(f.lifter.tenantID) { connection in
                    try await connection.query(
                        """
                        INSERT INTO workout_comments (tenant_id, comment_id, workout_id, author_id, body, created_at)
                        VALUES ($1, $2, $3, $4, 'not really the coach', now())
                        """,
                        [client, UUID(), f.workout.rawValue, f.coach.tenantID.rawValue])
                }
            }
            #expect(forged?.sqlState == PostgresError.Code.insufficientPrivilege)
            // And deletes their own comment only.
            let deleted = try await database.asTenant(f.coach.tenantID) { connection in
                try await connection.query("DELETE FROM workout_comments WHERE tenant_id = $1", [client]).affectedRows
            }
            #expect(deleted == 1)
            #expect(
                try await database.count(
                    "SELECT count(*)::int FROM workout_comments WHERE tenant_id = $1 AND comment_id = $2",
                    [client, f.comment]) == 1)

            // Once the link ends, not even their own comment.
            try await comment(author: f.coach.tenantID)
            _ = try await coaching.endLink(f.lifter, other: f.coach.tenantID.description)
            let ended = await #expect(throws: PostgresError.self) { try await comment(author: f.coach.tenantID) }
            #expect(ended?.sqlState == PostgresError.Code.insufficientPrivilege)
            let kept = try await database.asTenant(f.coach.tenantID) { connection in
                try await connection.query("DELETE FROM workout_comments WHERE tenant_id = $1", [client]).affectedRows
            }
            #expect(kept == 0)
        }
    }

    @Test("coach_links_guard: only the lifter grants scopes, only the coach marks seen, parties never change")
    func linkGuard() async throws {
        try await TestDatabase.with { database in
            let f = try await fixture(database)
            let coaching = database.coachingService(clock: TestClock(start))
            try await coaching.link(f.coach, f.lifter, scopes: ["history"])
            let other = try await database.lifter("coach_other", kind: .coach)
            let pair: [any PostgresEncodable] = [f.lifter.tenantID.rawValue, f.coach.tenantID.rawValue]
            let row = "WHERE tenant_id = $1 AND coach_id = $2"

            func refused(_ actor: Principal, _ sql: String, _ message: String) async {
                let error = await #expect(throws: PostgresError.self, "\(sql)") {
                    try await database.asTenant(actor.tenantID) { try await $0.query(sql, pair) }
                }
                #expect(error?.sqlState == PostgresError.Code.insufficientPrivilege, "\(sql)")
                #expect(error?.message.contains(message) == true, "\(sql): \(error?.message ?? "")")
            }
            func changes(_ actor: Principal, _ sql: String) async throws -> Int {
                try await database.asTenant(actor.tenantID) { try await $0.query(sql, pair).affectedRows }
            }

            await refused(
                f.coach, "UPDATE coach_links SET scopes = '{history,details,progress,body}' \(row)",
                "only the lifter grants scopes")
            await refused(
                f.lifter, "UPDATE coach_links SET coach_seen_at = now() \(row)", "only the coach marks a client seen")
            await refused(
                f.lifter, "UPDATE coach_links SET coach_id = '\(other.tenantID)' \(row)",
                "a link's parties cannot change")
            await refused(
                f.coach, "UPDATE coach_links SET tenant_id = '\(f.stranger.tenantID)' \(row)",
                "a link's parties cannot change")
            await refused(
                f.coach, "UPDATE coach_links SET requested_by = 'lifter' \(row)", "a link's parties cannot change")
            await refused(
                f.coach, "UPDATE coach_links SET status = 'pending' \(row)", "cannot change a active link to pending")
            #expect(try await scopes(database, f) == ["history"])

            // What each side may do, it may.
            #expect(try await changes(f.coach, "UPDATE coach_links SET coach_seen_at = now() \(row)") == 1)
            #expect(try await changes(f.lifter, "UPDATE coach_links SET scopes = '{history,details}' \(row)") == 1)
            #expect(try await scopes(database, f) == ["history", "details"])
            // A coach who is not a party changes nothing.
            #expect(try await changes(other, "UPDATE coach_links SET scopes = '{}', status = 'ended' \(row)") == 0)

            // Ended is final, for both sides.
            #expect(
                try await changes(
                    f.coach, "UPDATE coach_links SET status = 'ended', ended_at = now(), ended_by = 'coach' \(row)")
                    == 1)
            await refused(
                f.coach, "UPDATE coach_links SET status = 'active' \(row)", "the coach cannot change a ended link")
            await refused(
                f.lifter, "UPDATE coach_links SET status = 'active' \(row)", "the lifter cannot change a ended link")
            await refused(f.lifter, "UPDATE coach_links SET scopes = '{history}' \(row)", "a ended link cannot change")

            // Nobody accepts their own request.
            _ = try await coaching.requestCoach(f.lifter, username: "coach", scopes: ["history"])
            let pending = "\(row) AND status = 'pending'"
            await refused(
                f.lifter, "UPDATE coach_links SET status = 'active' \(pending)",
                "the lifter cannot change a pending link")
            #expect(try await changes(f.coach, "UPDATE coach_links SET status = 'active' \(pending)") == 1)
        }
    }

    @Test("a lifter can only open a pending link of their own, a coach only a pending invitation without scopes")
    func onlyPendingLinks() async throws {
        try await TestDatabase.with { database in
            let f = try await fixture(database)
            func insert(
                as actor: Principal, lifter: Principal, coach: Principal, status: String, by side: String,
                scopes: [String]
            ) async throws {
                try await database.asTenant(actor.tenantID) { connection in
                    try await connection.query(
                        """
                        INSERT INTO coach_links (tenant_id, link_id, coach_id, status, requested_by, scopes, created_at,
                                                 updated_at)
                        VALUES ($1, $2, $3, $4, $5, $6::text[], now(), now())
                        """,
                        [lifter.tenantID.rawValue, UUID(), coach.tenantID.rawValue, status, side, scopes])
                }
            }
            let everything = Scope.allCases.map(\.rawValue)
            let attempts: [(String, Principal, Principal, Principal, String, String, [String])] = [
                ("a lifter opening an active link", f.lifter, f.lifter, f.coach, "active", "lifter", everything),
                ("a lifter posing as the coach", f.lifter, f.lifter, f.coach, "pending", "coach", []),
                ("a lifter linking another lifter", f.lifter, f.stranger, f.coach, "pending", "lifter", everything),
                ("a coach opening an active link", f.coach, f.lifter, f.coach, "active", "coach", everything),
                ("a coach inviting with scopes", f.coach, f.lifter, f.coach, "pending", "coach", ["details"]),
                ("a coach posing as the lifter", f.coach, f.lifter, f.coach, "pending", "lifter", everything),
            ]
            for (what, actor, lifter, coach, status, side, scopes) in attempts {
                let error = await #expect(throws: PostgresError.self, "\(what)") {
                    try await insert(as: actor, lifter: lifter, coach: coach, status: status, by: side, scopes: scopes)
                }
                #expect(error?.sqlState == PostgresError.Code.insufficientPrivilege, "\(what)")
            }
            #expect(try await database.count("SELECT count(*)::int FROM coach_links") == 0)

            // The allowed requests, each of which grants nothing until the other side accepts.
            try await insert(
                as: f.lifter, lifter: f.lifter, coach: f.coach, status: "pending", by: "lifter", scopes: everything)
            let other = try await database.lifter("coach_other", kind: .coach)
            try await insert(as: other, lifter: f.lifter, coach: other, status: "pending", by: "coach", scopes: [])
            #expect(try await database.count("SELECT count(*)::int FROM coach_links WHERE status = 'pending'") == 2)
            for coach in [f.coach, other] {
                let seen = try await database.asTenant(coach.tenantID) { connection in
                    try await count("workouts", of: f.lifter.tenantID, connection)
                }
                #expect(seen == 0)
            }
        }
    }

    @Test("the access log is the lifter's: a coach cannot read, change or forge it, and nobody rewrites it")
    func accessLogIsTheLifters() async throws {
        try await TestDatabase.with { database in
            let f = try await fixture(database)
            let coaching = database.coachingService(clock: TestClock(start))
            try await coaching.link(f.coach, f.lifter, scopes: ["history"])
            _ = try await coaching.clientHistory(
                f.coach, client: f.lifter.tenantID.description, from: nil, to: nil, text: "", pageSize: 0,
                pageToken: "")
            let client = f.lifter.tenantID.rawValue

            let coachSees = try await database.asTenant(f.coach.tenantID) { connection in
                let all: Int = try await connection.query("SELECT count(*)::int AS n FROM coach_access_log").single!
                    .decode("n")
                let client = try await count("coach_access_log", of: f.lifter.tenantID, connection)
                return [all, client]
            }
            #expect(coachSees == [0, 0])
            let lifterSees = try await database.asTenant(f.lifter.tenantID) { connection in
                try await count("coach_access_log", of: f.lifter.tenantID, connection)
            }
            #expect(lifterSees == 1)

            let insert = """
                INSERT INTO coach_access_log (tenant_id, coach_id, accessed_at, data, method)
                VALUES ($1, $2, now(), 'history', 'Forged')
                """
            let other = try await database.lifter("coach_other", kind: .coach)
            let attempts: [(String, Principal, String, [any PostgresEncodable])] = [
                (
                    "a row about a lifter the coach has no link with", f.coach, insert,
                    [f.stranger.tenantID.rawValue, f.coach.tenantID.rawValue]
                ),
                ("a row in another coach's name", f.coach, insert, [client, other.tenantID.rawValue]),
                (
                    "a coach changing the log", f.coach,
                    "UPDATE coach_access_log SET method = 'x' WHERE tenant_id = $1",
                    [client]
                ),
                ("a coach deleting the log", f.coach, "DELETE FROM coach_access_log WHERE tenant_id = $1", [client]),
                (
                    "the lifter changing the log", f.lifter,
                    "UPDATE coach_access_log SET method = 'x' WHERE tenant_id = $1",
                    [client]
                ),
                (
                    "the lifter deleting the log", f.lifter, "DELETE FROM coach_access_log WHERE tenant_id = $1",
                    [client]
                ),
                ("the lifter writing the log", f.lifter, insert, [client, f.coach.tenantID.rawValue]),
            ]
            for (what, actor, sql, parameters) in attempts {
                let error = await #expect(throws: PostgresError.self, "\(what)") {
                    try await database.asTenant(actor.tenantID) { try await $0.query(sql, parameters) }
                }
                #expect(error?.sqlState == PostgresError.Code.insufficientPrivilege, "\(what)")
            }
            #expect(try await database.count("SELECT count(*)::int FROM coach_access_log WHERE method = 'Forged'") == 0)
            #expect(try await database.count("SELECT count(*)::int FROM coach_access_log") == 1)

            _ = try await coaching.endLink(f.lifter, other: f.coach.tenantID.description)
            let ended = await #expect(throws: PostgresError.self) {
                try await database.asTenant(f.coach.tenantID) {
                    try await $0.query(insert, [client, f.coach.tenantID.rawValue])
                }
            }
            #expect(ended?.sqlState == PostgresError.Code.insufficientPrivilege)
        }
    }

    @Test("a coach's history page of a client uses the history index under the coach-side policies")
    func coachHistoryUsesIndex() async throws {
        try await TestDatabase.with { database in
            let f = try await fixture(database)
            let coaching = database.coachingService(clock: TestClock(start))
            try await coaching.link(f.coach, f.lifter, scopes: ["history"])
            for person in [f.lifter, f.stranger] {
                try await admin(
                    database,
                    """
                    INSERT INTO workouts (tenant_id, workout_id, name, started_at, duration_seconds, exercise_count,
                                          set_count, rep_count, volume_kg, log_fingerprint, created_at, updated_at)
                    SELECT $1, gen_random_uuid(), 'Bulk ' || g, $2::timestamptz - g * interval '1 day', 3600, 0, 0, 0, 0,
                           '\\x00', now(), now()
                    FROM generate_series(1, 400) AS g
                    """,
                    [person.tenantID.rawValue, start.addingTimeInterval(-3 * 86_400)])
            }
            try await admin(database, "ANALYZE workouts", [])
            try await admin(database, "ANALYZE coach_links", [])
            let sql = """
                SELECT workout_id, name, started_at FROM workouts
                WHERE tenant_id = $1 AND deleted_at IS NULL
                ORDER BY started_at DESC LIMIT 20
                """
            let (plan, rows) = try await database.asTenant(f.coach.tenantID) { connection in
                let plan = try await connection.query("EXPLAIN " + sql, [f.lifter.tenantID.rawValue])
                    .map { try $0.decode(0) as String }.joined(separator: "\n")
                let rows = try await connection.query(sql, [f.lifter.tenantID.rawValue]).count
                return (plan, rows)
            }
            #expect(rows == 20)
            #expect(plan.contains("Index"), "\(plan)")
            #expect(!plan.contains("Seq Scan on workouts"), "\(plan)")
        }
    }

    // MARK: Helpers

    /// An active link from the lifter to the coach with `scopes`, through an invite code.
    @Test(
        "no one redeems an invite for someone else; comments cannot be edited; coaches do not see each other's comments"
    )
    func redemptionAndComments() async throws {
        try await TestDatabase.with { database in
            let f = try await fixture(database)
            let coaching = database.coachingService(clock: TestClock(start))
            let owner = try await database.ownerConnection()
            try await owner.query(
                "UPDATE tenants SET tier = 'coach_pro' WHERE tenant_id = $1", [f.coach.tenantID.rawValue])
            let code = try await coaching.createInvite(f.coach, note: "", validDays: 0).code!
            let hash = PostgresBytes(Token.hash(code))  // how invite codes are stored

            // The coach, or another lifter, naming the lifter: refused, and the code stays unused.
            for actor in [f.coach.tenantID, f.stranger.tenantID] {
                let refused = await #expect(throws: PostgresError.self) {
                    try await database.asTenant(actor) { connection in
                        try await connection.query(
                            "SELECT spotter_redeem_invite($1, $2, '{history,details}', gen_random_uuid(), now())",
                            [hash, f.lifter.tenantID.rawValue])
                    }
                }
                #expect(refused?.sqlState == PostgresError.Code.insufficientPrivilege)
            }
            #expect(try await database.count("SELECT count(*)::int FROM coach_links") == 0)
            _ = try await coaching.redeemInvite(f.lifter, code: code, scopes: ["details"])

            // A second coach with details on the same lifter.
            let other = try await database.lifter("coach_two", kind: .coach)
            try await owner.query(
                "UPDATE tenants SET tier = 'coach_pro' WHERE tenant_id = $1", [other.tenantID.rawValue])
            let second = try await coaching.createInvite(other, note: "", validDays: 0).code!
            _ = try await coaching.redeemInvite(f.lifter, code: second, scopes: ["details"])
            let client = f.lifter.tenantID.description
            let first = try await coaching.commentAsCoach(
                f.coach, client: client, workoutID: f.workout.description, exerciseIndex: nil, setIndex: nil,
                body: "from coach one")
            _ = try await coaching.commentAsCoach(
                other, client: client, workoutID: f.workout.description, exerciseIndex: nil, setIndex: nil,
                body: "from coach two")
            let seenByOne = try await coaching.clientComments(f.coach, client: client, workoutID: f.workout.description)
            #expect(!seenByOne.map(\.body).contains("from coach two"))
            #expect(seenByOne.map(\.body).contains("from coach one"))
            // The lifter sees the whole thread.
            #expect(try await coaching.comments(f.lifter, workoutID: f.workout.description).count == 3)

            // Nobody rewrites a comment, not even on their own workout.
            let edited = await #expect(throws: PostgresError.self) {
                try await database.asTenant(f.lifter.tenantID) { connection in
                    try await connection.query(
                        "UPDATE workout_comments SET body = 'rewritten' WHERE tenant_id = $1 AND comment_id = $2",
                        [f.lifter.tenantID.rawValue, first.id])
                }
            }
            #expect(edited?.sqlState == PostgresError.Code.insufficientPrivilege)
        }
    }

    private func scopes(_ database: TestDatabase, _ f: Fixture) async throws -> [String] {
        let owner = try await database.ownerConnection()
        defer { Task { await owner.close() } }
        return try await owner.query(
            "SELECT array_to_string(scopes, ',') AS s FROM coach_links WHERE tenant_id = $1 AND coach_id = $2",
            [f.lifter.tenantID.rawValue, f.coach.tenantID.rawValue]
        ).single!.decode("s", as: String.self).split(separator: ",").map(String.init)
    }

    /// Everything of the lifter's that a coach might try to change, read past row-level security.
    private func snapshot(_ database: TestDatabase, _ tenant: TenantID) async throws -> [String] {
        let owner = try await database.ownerConnection()
        defer { Task { await owner.close() } }
        var lines: [String] = []
        for table in [
            "workouts", "workout_exercises", "workout_sets", "exercises", "workout_comments", "programs",
            "program_follows",
        ] {
            lines += try await owner.query(
                "SELECT t::text AS line FROM \(table) t WHERE tenant_id = $1 ORDER BY 1", [tenant.rawValue]
            ).map { "\(table): " + (try $0.decode("line") as String) }
        }
        return lines
    }

    @Test("a coach's tier and client count are told only to the coach, its linked lifters and holders of its codes")
    func capacityPrivacy() async throws {
        try await TestDatabase.with { database in
            let f = try await fixture(database)
            let coaching = database.coachingService(clock: TestClock(start))
            func rows(_ tenant: TenantID, code: String? = nil) async throws -> Int {
                let hash = code.flatMap(InviteCode.normalize).map { PostgresBytes(Token.hash($0)) }
                return try await database.asTenant(tenant) { connection in
                    try await connection.query(
                        "SELECT * FROM spotter_coach_capacity($1, $2, $3)", [f.coach.tenantID.rawValue, hash, start]
                    ).count
                }
            }
            #expect(try await rows(f.coach.tenantID) == 1)
            #expect(try await rows(f.stranger.tenantID) == 0)
            #expect(try await rows(f.lifter.tenantID) == 0)
            let invite = try await coaching.createInvite(f.coach, note: "", validDays: 7)
            let code = try #require(invite.code)
            #expect(try await rows(f.stranger.tenantID, code: code) == 1)
            #expect(try await rows(f.stranger.tenantID, code: "AAAAAAAAAA") == 0)
            _ = try await coaching.redeemInvite(f.lifter, code: code, scopes: ["history"])
            #expect(try await rows(f.lifter.tenantID) == 1)
            // Used now: the code no longer opens it to the stranger.
            #expect(try await rows(f.stranger.tenantID, code: code) == 0)
        }
    }

    @Test("across a link only display names are told, and an active client's time zone to the coach; no tier or unit")
    func linkedParties() async throws {
        try await TestDatabase.with { database in
            let f = try await fixture(database)
            let coaching = database.coachingService(clock: TestClock(start))
            try await admin(
                database, "UPDATE tenants SET time_zone = 'Europe/Oslo' WHERE tenant_id = $1",
                [f.lifter.tenantID.rawValue])
            func tenantRows(_ viewer: Principal, of other: Principal) async throws -> Int {
                try await count("tenants", of: other.tenantID, viewer.tenantID, database)
            }
            // What the set tells of `other`; the functions for one party must tell the same name and time zone.
            func party(_ viewer: Principal, _ other: Principal) async throws -> (name: String, timeZone: String?)? {
                try await database.asTenant(viewer.tenantID) { connection in
                    let found: (name: String, timeZone: String?)? = try await connection.query(
                        "SELECT display_name, time_zone FROM spotter_linked_parties() WHERE tenant_id = $1",
                        [other.tenantID.rawValue]
                    ).first.map { (try $0.decode("display_name"), try $0.decode("time_zone")) }
                    let alone = try #require(
                        try await connection.query(
                            "SELECT spotter_linked_name($1) AS name, spotter_linked_time_zone($1) AS time_zone",
                            [other.tenantID.rawValue]
                        ).single)
                    #expect(try alone.decode("name") == found?.name, "spotter_linked_name() agrees with the set")
                    #expect(
                        try alone.decode("time_zone") == found?.timeZone,
                        "spotter_linked_time_zone() agrees with the set")
                    return found
                }
            }
            #expect(try await party(f.lifter, f.coach) == nil)
            #expect(try await party(f.lifter, f.lifter)?.name == "lifter", "the caller itself")

            _ = try await coaching.requestCoach(f.lifter, username: "coach", scopes: ["history"])
            #expect(try await tenantRows(f.lifter, of: f.coach) == 0)
            #expect(try await tenantRows(f.coach, of: f.lifter) == 0)
            #expect(try await party(f.lifter, f.coach)?.name == "coach")
            #expect(try await party(f.lifter, f.coach)?.timeZone == nil)
            #expect(try await party(f.coach, f.lifter)?.timeZone == nil, "a pending request shows no time zone")
            #expect(try await party(f.stranger, f.coach) == nil)
            #expect(try await coaching.links(f.coach, includeClosed: false).first?.lifterName == "lifter")

            _ = try await coaching.respond(
                f.coach, other: f.lifter.tenantID.description, accept: true, scopes: [])
            #expect(try await party(f.coach, f.lifter)?.timeZone == "Europe/Oslo")
            #expect(try await party(f.lifter, f.coach)?.timeZone == nil, "a lifter is not told the coach's time zone")
            #expect(try await tenantRows(f.coach, of: f.lifter) == 0, "tier and unit stay the lifter's")

            _ = try await coaching.endLink(f.lifter, other: f.coach.tenantID.description)
            #expect(try await party(f.coach, f.lifter)?.name == "lifter", "an ended link keeps the name")
            #expect(try await party(f.coach, f.lifter)?.timeZone == nil)

            // Linked again beside the ended link: one row each, the time zone back for the coach.
            _ = try await coaching.requestCoach(f.lifter, username: "coach", scopes: ["history"])
            _ = try await coaching.respond(
                f.coach, other: f.lifter.tenantID.description, accept: true, scopes: [])
            func parties(_ viewer: Principal) async throws -> [String] {
                try await database.asTenant(viewer.tenantID) { connection in
                    try await connection.query(
                        "SELECT display_name || '/' || coalesce(time_zone, '-') AS party FROM spotter_linked_parties() ORDER BY 1"
                    ).map { try $0.decode("party") }
                }
            }
            #expect(try await parties(f.coach) == ["coach/UTC", "lifter/Europe/Oslo"])
            #expect(try await parties(f.lifter) == ["coach/-", "lifter/Europe/Oslo"])
            #expect(try await parties(f.stranger).count == 1, "only the stranger itself")
        }
    }

}

/// One statement as the schema owner, past row-level security.
private func admin(_ database: TestDatabase, _ sql: String, _ parameters: [any PostgresEncodable]) async throws {
    let owner = try await database.ownerConnection()
    defer { Task { await owner.close() } }
    try await owner.query(sql, parameters)
}

/// The rows of `tenant` in `table` that `viewer` reads, in a transaction of its own.
private func count(_ table: String, of tenant: TenantID, _ viewer: TenantID, _ database: TestDatabase) async throws
    -> Int
{
    try await database.asTenant(viewer) { connection in try await count(table, of: tenant, connection) }
}

private func count(_ table: String, of tenant: TenantID, _ connection: PostgresConnection) async throws -> Int {
    try await connection.query("SELECT count(*)::int AS n FROM \(table) WHERE tenant_id = $1", [tenant.rawValue])
        .single!.decode("n")
}
