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

    /// Every distinct statement `log` recorded, planned as `tenant` the way spotterd plans it (the
    /// generic plan a pooled connection keeps, or a plan for its values after spotterd asked for one,
    /// `PostgresConnection.Planning.custom`): how many there were, and each one whose plan reads a
    /// large table whole, with that plan. Large: the statistics count 300 rows or more (the test's
    /// large tenants made it so; in the others, a few rows, reading them whole is the cheapest plan).
    static func wholeTableReads(_ log: PostgresStatementLog, as tenant: TenantID, _ database: TestDatabase)
        async throws -> (statements: Int, whole: [String])
    {
        let largeTables: [String] = try await database.asOwner { connection in
            try await connection.query(
                """
                SELECT relname FROM pg_class
                WHERE relkind = 'r' AND relnamespace = 'public'::regnamespace AND reltuples >= 300
                """
            ).map { try $0.decode("relname") }
        }
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
            let plan = try await database.asTenant(tenant) { connection in
                try await Self.preparedPlan(sql, statement.parameters, planning: planning, analyze: false, connection)
            }
            if plan.contains(where: { line in largeTables.contains { line.contains("Seq Scan on \($0) ") } }) {
                wholeReads.append(sql + "\n" + plan.joined(separator: "\n"))
            }
        }
        return (seen.count, wholeReads)
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
                try await connection.execute("ANALYZE sync_changes, sync_counters, activity_kept")
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
            let ada = try await database.proLifter("ada")
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

            let (seen, wholeReads) = try await Self.wholeTableReads(log, as: ada.tenantID, database)
            #expect(seen > 20, "the calls' statements were recorded")
            #expect(wholeReads.isEmpty, "\(wholeReads.joined(separator: "\n\n"))")
        }
    }

    /// A lifter and her coach with many rows in every table a call reads (workouts, runs, templates,
    /// custom exercises, measurements, guided sessions, comments, programs and their assignments, the
    /// access log, publications), then ANALYZE while they are the only tenants: the statistics expect
    /// every tenant to hold all of each table's rows.
    static func analyseWhales(_ database: TestDatabase, _ clock: TestClock) async throws {
        let training = database.trainingServices(clock: clock)
        let coaching = database.coachingService(clock: clock)
        let whale = try await database.proLifter("whale")
        let coach = try await database.lifter("whalecoach", kind: .coach)
        try await database.asOwner { connection in
            try await connection.query(
                "UPDATE tenants SET tier = 'coach_pro' WHERE tenant_id = $1", [coach.tenantID.rawValue])
        }
        try await coaching.link(coach, whale, scopes: Scope.allCases.map(\.rawValue))
        let long = clock.now.addingTimeInterval(-1_000 * 86_400)
        let numbered = ["name": "x.name || ' ' || c.n"]

        let workout = try await training.workouts.log(
            whale, id: "", workoutDraft(at: long, exercises: [Catalog.squat, Catalog.benchPress], sets: 5))
        try await database.copyWorkout(whale.tenantID, workout.id, times: 399)
        let run = try await database.runService(clock: clock).log(
            whale, id: "",
            RunDraft(
                name: "River run", startedAt: long.addingTimeInterval(3_600),
                samples: (0..<200).map { FootstepSample(offsetMilliseconds: Int64($0) * 350) }))
        try await database.copyWorkout(whale.tenantID, run.workout.id, times: 600)
        let template = try await training.templates.create(
            whale, id: "",
            TemplateDraft(
                name: "Whale plan",
                items: [
                    TemplateItemDraft(exerciseID: Catalog.squat.description, targetSets: 3, repsMin: 5),
                    TemplateItemDraft(exerciseID: Catalog.benchPress.description, targetSets: 3, repsMin: 5),
                ]))
        try await database.copyRows(
            whale.tenantID, "templates", key: "template_id", id: template.id.rawValue, children: ["template_items"],
            times: 1_000, changes: ["templates": numbered])
        let exercise = try await training.exercises.create(
            whale, id: "",
            ExerciseDraft(
                name: "Whale squat", category: .squat, muscleGroup: .quadriceps, equipment: .barbell, instructions: ""))
        try await database.copyRows(
            whale.tenantID, "exercises", key: "exercise_id", id: exercise.id.rawValue, times: 1_000,
            changes: ["exercises": numbered])
        let measurement = try await training.body.record(
            whale, id: "", MeasurementDraft(metric: "body_weight", measuredOn: "2026-09-01", value: 90))
        try await database.copyRows(
            whale.tenantID, "body_measurements", key: "measurement_id", id: measurement.id.rawValue, times: 1_000,
            changes: ["body_measurements": ["measured_on": "x.measured_on - c.n"]])
        let sessions = database.guidedSessionService(clock: clock)
        let session = try await sessions.start(whale, id: "", .template(template.id.description))
        _ = try await sessions.recordSet(
            whale, id: session.id.description, exercise: 0, set: 0,
            SetDraft(reps: 5, weight: WeightDraft(value: 100, unit: .kg)))
        _ = try await sessions.complete(whale, id: session.id.description)
        try await database.copyRows(
            whale.tenantID, "guided_sessions", key: "session_id", id: session.id.rawValue, times: 1_000)

        let coachTemplate = try await training.templates.create(
            coach, id: "",
            TemplateDraft(
                name: "Whale block day",
                items: [TemplateItemDraft(exerciseID: Catalog.deadlift.description, targetSets: 5, repsMin: 3)]))
        let program = try await coaching.createProgram(
            coach, id: "",
            ProgramDraft(
                name: "Whale block", weeks: 1,
                days: [ProgramDraft.Day(week: 1, weekday: 1, templateID: coachTemplate.id.description)]))
        try await database.copyRows(
            coach.tenantID, "programs", key: "program_id", id: program.id.rawValue, children: ["program_days"],
            times: 1_000, changes: ["programs": numbered])
        _ = try await database.discoverService(clock: clock).publish(
            whale,
            PublishDraft(
                kind: .template, sourceID: template.id.description, description: "", difficulty: "beginner",
                categories: ["strength"]))
        try await database.asOwner { connection in
            // A comment of the whale's on each workout; each of the coach's programs assigned to her;
            // the coach's reads in her access log; a publication of each of her templates.
            try await connection.query(
                """
                INSERT INTO workout_comments (tenant_id, comment_id, workout_id, author_id, body, created_at)
                SELECT tenant_id, gen_random_uuid(), workout_id, tenant_id, 'Felt strong', started_at
                FROM workouts WHERE tenant_id = $1
                """, [whale.tenantID.rawValue])
            try await connection.query(
                """
                INSERT INTO assignments (tenant_id, assignment_id, lifter_id, program_id, created_at)
                SELECT tenant_id, gen_random_uuid(), $2, program_id, created_at FROM programs WHERE tenant_id = $1
                """, [coach.tenantID.rawValue, whale.tenantID.rawValue])
            try await connection.query(
                """
                INSERT INTO coach_access_log (tenant_id, coach_id, accessed_at, data, method)
                SELECT $1, $2, now() - g * interval '1 minute', 'history', 'ListClientWorkouts'
                FROM generate_series(1, 5000) AS g
                """, [whale.tenantID.rawValue, coach.tenantID.rawValue])
            try await connection.query(
                """
                WITH c AS (
                    SELECT t.template_id AS source, gen_random_uuid() AS id FROM templates t
                    WHERE t.tenant_id = $1 AND t.template_id <> $2
                ), p AS (
                    INSERT INTO publications
                    SELECT (jsonb_populate_record(NULL::publications,
                        to_jsonb(x) || jsonb_build_object('publication_id', c.id, 'source_id', c.source))).*
                    FROM publications x, c WHERE x.author_id = $1
                )
                INSERT INTO publication_versions
                SELECT (jsonb_populate_record(NULL::publication_versions,
                    to_jsonb(x) || jsonb_build_object('publication_id', c.id))).*
                FROM publication_versions x, c WHERE x.author_id = $1
                """, [whale.tenantID.rawValue, template.id.rawValue])
        }
        try await training.activity.reconcile(whale.tenantID)
        try await database.asOwner { try await $0.execute("ANALYZE") }
    }

    @Test(
        "every call of the access matrix, by the owner, her coach and a stranger, and their own writes and lists, read no large table whole under generic plans made while the statistics knew of one large lifter and her coach alone"
    )
    func matrixCallsReadNoTableWhole() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock(Date(timeIntervalSince1970: 1_790_000_000))
            try await Self.analyseWhales(database, clock)
            let coaching = database.coachingService(clock: clock)
            let training = database.trainingServices(clock: clock)
            let world = try await World.build(database, coaching, training, clock)
            let log = PostgresStatementLog()
            var calls = 0
            await PostgresStatementLog.$current.withValue(log) {
                for row in matrixRows() {
                    for role in [Role.owner, .coachFull, .stranger] where row.expected(role) != nil {
                        clock.advance(by: 1)
                        calls += 1
                        _ = await attempt { try await row.call(coaching, training, world.principal(role), world) }
                    }
                }
            }
            // Calls the matrix leaves out (its rows ask about someone else's data): the owner's run,
            // lists and plan for today, a guided session from her coach's assigned program, and the
            // coach's programs, invites and sync.
            let owner = world.principal(.owner)
            let coach = world.principal(.coachFull)
            try await PostgresStatementLog.$current.withValue(log) {
                _ = try await world.runs.log(
                    owner, id: "",
                    RunDraft(
                        name: "Evening run", startedAt: clock.now.addingTimeInterval(-3_600),
                        samples: (0..<200).map { FootstepSample(offsetMilliseconds: Int64($0) * 350) }))
                _ = try await training.exercises.list(owner, ExerciseFilter(), pageSize: 50, pageToken: "")
                _ = try await training.templates.list(owner, includeArchived: false, pageSize: 20, pageToken: "")
                _ = try await coaching.today(owner)
                _ = try await world.sessions.abandon(owner, id: world.session)
                let session = try await world.sessions.start(owner, id: "", .template(world.programTemplate))
                _ = try await world.sessions.recordSet(
                    owner, id: session.id.description, exercise: 0, set: 0,
                    SetDraft(reps: 3, weight: WeightDraft(value: 140, unit: .kg)))
                _ = try await world.sessions.complete(owner, id: session.id.description)
                _ = try await coaching.programs(coach)
                _ = try await coaching.invites(coach)
                // The coach's own device: a full pull, then another after a new template.
                let sync = database.syncService(clock: clock)
                var tablet = try await SimulatedDevice.register(sync, coach, label: "tablet")
                _ = try await tablet.pullAll(sync)
                _ = try await training.templates.create(
                    coach, id: "",
                    TemplateDraft(
                        name: "Tablet day",
                        items: [TemplateItemDraft(exerciseID: Catalog.squat.description, targetSets: 3, repsMin: 5)]))
                #expect(try await tablet.pullAll(sync).count == 1, "the coach's device gets the new template")
            }
            let (seen, wholeReads) = try await Self.wholeTableReads(log, as: world.id(.owner), database)
            #expect(calls > 150 && seen > 100, "the calls' statements were recorded: \(calls) calls, \(seen)")
            #expect(wholeReads.isEmpty, "\(wholeReads.count) statements:\n\(wholeReads.joined(separator: "\n\n"))")
        }
    }
}
