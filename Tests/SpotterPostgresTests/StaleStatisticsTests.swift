import Foundation
import Postgres
import SpotterCore
import SpotterTestSupport
import Testing

@testable import SpotterPostgres

/// The sync slowdown of issue 16: after an ANALYZE, a tenant whose rows came later is estimated at
/// one row, and a read of a few of its workouts by `workout_id = ANY(ids)` went through all of the
/// tenant's sets in index order, filtering them.
@Suite("Plans when the statistics predate a tenant")
struct StaleStatisticsTests {
    /// `sql`'s plan as a pooled connection runs it: prepared, planned as `planning` says (the generic
    /// plan by default), executed with `parameters` under `EXPLAIN` (`analyze`: run, with the rows
    /// each step removed).
    static func preparedPlan(
        _ sql: String, _ parameters: [String?], planning: PostgresConnection.Planning = .generic, analyze: Bool,
        _ connection: PostgresConnection
    ) async throws -> [String] {
        try await connection.execute("PREPARE explained AS " + sql)
        try await connection.execute("SET LOCAL plan_cache_mode = \(planning.rawValue)")
        // EXECUTE takes no protocol parameters: the texts as literals.
        let arguments = parameters.map { text in
            text.map { "'" + $0.replacingOccurrences(of: "'", with: "''") + "'" } ?? "NULL"
        }.joined(separator: ", ")
        let plan = try await connection.query(
            "EXPLAIN (\(analyze ? "ANALYZE, " : "")COSTS OFF) EXECUTE explained"
                + (arguments.isEmpty ? "" : "(\(arguments))")
        ).rows.map { row -> String in try row.decode("QUERY PLAN") }
        try await connection.execute("DEALLOCATE explained")
        return plan
    }

    @Test(
        "a few workouts of a tenant newer than the last ANALYZE are read by id, not by filtering all of the tenant's rows"
    )
    func newTenantReadsByID() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock(Date(timeIntervalSince1970: 1_790_000_000))
            let training = database.trainingServices(clock: clock)
            func logWorkouts(_ lifter: Principal, _ count: Int) async throws -> [WorkoutID] {
                var ids: [WorkoutID] = []
                for index in 0..<count {
                    let id = WorkoutID.random()
                    let sets = (0..<5).map { SetDraft(reps: 5, weight: WeightDraft(value: Double(60 + $0), unit: .kg)) }
                    _ = try await training.workouts.log(
                        lifter, id: id.description,
                        WorkoutDraft(
                            name: "Day \(index)", startedAt: clock.now.addingTimeInterval(Double(index) * -86_400),
                            durationSeconds: 3600,
                            exercises: [
                                WorkoutExerciseDraft(exerciseID: Catalog.squat.description, sets: sets),
                                WorkoutExerciseDraft(exerciseID: Catalog.benchPress.description, sets: sets),
                            ]))
                    ids.append(id)
                }
                return ids
            }
            _ = try await logWorkouts(try await database.lifter("earlier"), 20)
            try await database.asOwner { try await $0.execute("ANALYZE workouts, workout_exercises, workout_sets") }
            let later = try await database.lifter("later")
            let ids = try await logWorkouts(later, 150)

            // The statements the read sends, each run again under EXPLAIN ANALYZE as the tenant.
            let log = PostgresStatementLog()
            let (read, planMode) = try await PostgresStatementLog.$current.withValue(log) {
                try await database.asTenant(later.tenantID) { connection in
                    let read = try await WorkoutSQL.load(later.tenantID, only: [ids[7], ids[70]], connection)
                    // The read runs under generic plans and puts the setting back for the rest of
                    // the transaction.
                    let mode: String = try await connection.query("SELECT current_setting('plan_cache_mode') AS mode")
                        .single!.decode("mode")
                    return (read, mode)
                }
            }
            #expect(read.map(\.id) == [ids[70], ids[7]])
            #expect(read.allSatisfy { $0.content.exercises.map(\.sets.count) == [5, 5] })
            #expect(planMode == "auto")
            let statements = log.statements.filter {
                $0.sql.hasPrefix("SELECT") && !$0.sql.contains("set_config") && !$0.sql.contains("current_setting")
            }
            #expect(statements.count == 3)
            for statement in statements {
                // A plan for these ids, and the generic plan the read uses (a prepared statement's,
                // for any ids).
                for generic in [false, true] {
                    let plan = try await database.asTenant(later.tenantID) { connection in
                        // The test's tables hold a few hundred rows, where reading a whole table can
                        // be PostgreSQL's cheapest plan (seen on CI); a production table never is.
                        // Without that choice, what is left is the one that matters: which index,
                        // with which conditions.
                        try await connection.execute("SET LOCAL enable_seqscan = off")
                        return try await Self.preparedPlan(
                            statement.sql, statement.parameters, planning: generic ? .generic : .custom, analyze: true,
                            connection)
                    }
                    let removed = plan.compactMap { line in
                        line.split(separator: "Rows Removed by Filter: ").last.flatMap { Int($0) }
                    }.reduce(0, +)
                    #expect(removed < 20, "generic: \(generic)\n\(statement.sql)\n\(plan.joined(separator: "\n"))")
                }
            }
        }
    }

    @Test(
        "a round's look at the feed since its kept state probes the feed's index, also when the statistics know of one large tenant alone"
    )
    func keptStateProbesTheFeed() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock(Date(timeIntervalSince1970: 1_790_000_000))
            let training = database.trainingServices(clock: clock)
            // One lifter with a long feed (10,000 changes), analysed while the only one: the statistics
            // expect a third of the table after any feed number of any tenant.
            let whale = try await database.lifter("whale")
            try await database.asOwner { connection in
                try await connection.query(
                    """
                    INSERT INTO sync_changes (tenant_id, kind, object_id, seq, deleted, changed_at)
                    SELECT $1, 'workout', gen_random_uuid(), g, false, now() FROM generate_series(1001, 11000) AS g
                    """, [whale.tenantID.rawValue])
                try await connection.query(
                    """
                    INSERT INTO sync_counters (tenant_id, last_seq) VALUES ($1, 11000)
                    ON CONFLICT (tenant_id) DO UPDATE SET last_seq = 11000
                    """, [whale.tenantID.rawValue])
                try await connection.execute("ANALYZE sync_changes, sync_counters, activity_state")
            }
            let ada = try await database.lifter("ada")
            _ = try await training.workouts.log(ada, id: "", workoutDraft(at: clock.now))
            try await training.activity.reconcile(ada.tenantID)

            // The kept state's read under its generic plan (a pooled connection's, for any tenant).
            let plan = try await database.asTenant(ada.tenantID) { connection in
                try await Self.preparedPlan(
                    PostgresActivityStore.keptSQL, [ada.tenantID.rawValue.uuidString], analyze: true, connection)
            }
            let text = plan.joined(separator: "\n")
            #expect(text.contains("sync_changes_seq_key"), "\(text)")
            #expect(!text.contains("Seq Scan on sync_changes"), "\(text)")
        }
    }

    @Test(
        "a small lifter's and her coach's everyday calls read no large table whole under generic plans made while the statistics knew of one large tenant alone"
    )
    func everydayCallsReadNoTableWhole() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock(Date(timeIntervalSince1970: 1_790_000_000))
            let training = database.trainingServices(clock: clock)
            let sync = database.syncService(clock: clock)
            // A lifter with a long history, analysed while the only one: the statistics expect every
            // tenant to hold all of each table's rows.
            let whale = try await database.lifter("whale")
            let first = try await training.workouts.log(
                whale, id: "",
                workoutDraft(
                    at: clock.now.addingTimeInterval(-400 * 86_400), exercises: [Catalog.squat, Catalog.benchPress],
                    sets: 5))
            try await database.copyWorkout(whale.tenantID, first.id, times: 399)
            try await training.activity.reconcile(whale.tenantID)
            try await database.asOwner { try await $0.execute("ANALYZE") }

            // Her everyday calls and her coach's, each statement recorded with its parameters.
            let ada = try await database.lifter("ada")
            let coaching = database.coachingService(clock: clock)
            let sessions = database.guidedSessionService(clock: clock)
            let coach = try await database.lifter("cora", kind: .coach)
            try await database.asOwner { connection in
                try await connection.query(
                    "UPDATE tenants SET tier = 'coach' WHERE tenant_id = $1", [coach.tenantID.rawValue])
            }
            try await coaching.link(coach, ada, scopes: ["history", "details", "progress"])
            let log = PostgresStatementLog()
            try await PostgresStatementLog.$current.withValue(log) {
                var phone = try await SimulatedDevice.register(sync, ada, label: "phone")
                try await phone.pullAll(sync)
                var logged: [Workout] = []
                for day in 0..<3 {
                    logged.append(
                        try await training.workouts.log(
                            ada, id: "", workoutDraft(at: clock.now.addingTimeInterval(Double(day - 3) * 86_400))))
                    try await training.activity.reconcile(ada.tenantID)
                }
                _ = try await training.workouts.get(ada, id: logged[0].id.description)
                _ = try await training.workouts.history(ada, from: nil, to: nil, text: "", pageSize: 20, pageToken: "")
                _ = try await training.progress.progress(
                    ada, exerciseID: Catalog.benchPress.description, from: nil, to: nil, formula: .epley)
                _ = try await training.activity.achievements(ada)
                _ = try await training.activity.summary(ada, from: nil, to: nil)
                let pushed = phone.put(.workout(workoutDraft(at: clock.now)), UUID(), base: 0)
                #expect(try await phone.push(sync, [pushed]).map(\.status) == [.applied])
                try await phone.pullAll(sync)
                // A template, a guided session from it set by set, a body measurement.
                let template = try await training.templates.create(
                    ada, id: "",
                    TemplateDraft(
                        name: "Press",
                        items: [
                            TemplateItemDraft(
                                exerciseID: Catalog.benchPress.description, targetSets: 2, repsMin: 5, repsMax: 5)
                        ]))
                _ = try await training.templates.list(ada, includeArchived: false, pageSize: 20, pageToken: "")
                let session = try await sessions.start(ada, id: "", .template(template.id.description))
                for set in 0..<2 {
                    _ = try await sessions.recordSet(
                        ada, id: session.id.description, exercise: 0, set: set,
                        SetDraft(reps: 5, weight: WeightDraft(value: 100, unit: .kg)))
                }
                _ = try await sessions.complete(ada, id: session.id.description)
                _ = try await training.body.record(
                    ada, id: "", MeasurementDraft(metric: "body_weight", measuredOn: "2026-09-01", value: 80.4))
                _ = try await training.body.series(ada, metrics: ["body_weight"], from: "", to: "")
                let client = ada.tenantID.description
                _ = try await coaching.clients(coach, inactiveDays: 7)
                _ = try await coaching.clientHistory(
                    coach, client: client, from: nil, to: nil, text: "", pageSize: 20, pageToken: "")
                _ = try await coaching.clientWorkout(coach, client: client, workoutID: logged[0].id.description)
                _ = try await coaching.clientProgress(
                    coach, client: client, exerciseID: Catalog.benchPress.description, from: nil, to: nil,
                    formula: .epley)
                _ = try await coaching.clientAchievements(coach, client: client)
            }

            // Each distinct statement's generic plan (a pooled connection's, for any tenant), or a
            // plan for its values where spotterd asks for one (`PostgresConnection.Planning.custom`).
            let skipped = ["BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE", "FETCH", "CLOSE", "\\"]
            var seen = Set<String>()
            var wholeReads: [String] = []
            var planning = PostgresConnection.Planning.generic
            for statement in log.statements {
                if statement.sql.hasPrefix("SELECT set_config('plan_cache_mode', ") {
                    planning = statement.sql.contains(PostgresConnection.Planning.custom.rawValue) ? .custom : .generic
                    continue
                }
                guard !skipped.contains(where: statement.sql.hasPrefix), seen.insert(statement.sql).inserted
                else { continue }
                var sql = statement.sql
                if sql.hasPrefix("DECLARE"), let range = sql.range(of: "CURSOR FOR") {
                    sql = String(sql[range.upperBound...])
                }
                let plan = try await database.asTenant(ada.tenantID) { connection in
                    try await Self.preparedPlan(
                        sql, statement.parameters, planning: planning, analyze: false, connection)
                }
                let large = [
                    "workouts", "workout_exercises", "workout_sets", "sync_changes", "achievements", "templates",
                    "template_items", "guided_sessions", "body_measurements",
                ]
                if plan.contains(where: { line in large.contains { line.contains("Seq Scan on \($0) ") } }) {
                    wholeReads.append(sql + "\n" + plan.joined(separator: "\n"))
                }
            }
            #expect(seen.count > 20, "the calls' statements were recorded")
            #expect(wholeReads.isEmpty, "\(wholeReads.joined(separator: "\n\n"))")
        }
    }
}
