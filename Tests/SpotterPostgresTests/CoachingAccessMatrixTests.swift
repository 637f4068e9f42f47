import Foundation
import Logging
import Postgres
import SpotterCore
import SpotterPostgres
import SpotterTestSupport
import Testing

/// Every coach-facing and lifter-facing call, asked by every kind of tenant about one lifter's data,
/// through the services on real PostgreSQL: each cell names the exact answer, a hidden object
/// answers like one that does not exist, no successful answer carries another tenant's data, and
/// each successful coach read adds exactly one row to the lifter's access log.
@Suite("Coaching access matrix")
struct CoachingAccessMatrixTests {
    private let start = Date(timeIntervalSince1970: 1_790_000_000)

    @Test("every call answers every caller exactly as links, scopes and tiers allow, never with another tenant's data")
    func matrix() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock(start)
            let coaching = database.coachingService(clock: clock)
            let training = database.trainingServices(clock: clock)
            let world = try await World.build(database, coaching, training, clock)
            // The leak detector finds what it looks for: the owner's own workout names its id and name.
            let own = try await training.workouts.get(world.principal(.owner), id: world.workout)
            #expect(world.markers[.owner]!.filter { rendered(own).contains($0) }.count >= 3)
            let owner = try await database.ownerConnection()
            var cells = 0
            for row in matrixRows() {
                for role in Role.allCases {
                    guard let expected = row.expected(role) else { continue }
                    cells += 1
                    let cell = "\(row.name) as \(role)"
                    clock.advance(by: 1)
                    let before = try await accessLog(of: world.id(.owner), owner)
                    let result = await attempt { try await row.call(coaching, training, world.principal(role), world) }
                    let after = try await accessLog(of: world.id(.owner), owner)
                    let added = Array(after.dropFirst(before.count))
                    switch (expected, result) {
                    case (.success, .success(let value)):
                        assertNoForeignData(value, visible: row.visible(role), world, cell)
                        row.check(role, value, world)
                        let logged = row.logs(role).map {
                            [LogRow(coach: world.id(role), kind: $0.kind, method: $0.method)]
                        }
                        #expect(added == (logged ?? []), "\(cell): access-log rows added")
                    case (.failure(let wanted), .failure(let error)):
                        #expect(error as? SpotterError == wanted, "\(cell)")
                        #expect(added.isEmpty, "\(cell): a refused call added access-log rows \(added)")
                        // An object the caller may not see answers exactly like one that does not exist.
                        if case .notFound = wanted {
                            let twin = await attempt {
                                try await row.call(coaching, training, world.principal(role), row.twin(world))
                            }
                            if case .failure(let twinError) = twin {
                                #expect(twinError as? SpotterError == wanted, "\(cell): the same call naming nothing")
                            } else {
                                Issue.record("\(cell): the same call naming nothing succeeded")
                            }
                        }
                    case (.success, .failure(let error)):
                        Issue.record("\(cell): expected success, got \(error)")
                    case (.failure(let wanted), .success(let value)):
                        Issue.record("\(cell): expected \(wanted), got success \(value)")
                    }
                }
            }
            #expect(cells > 250)
            // Only the owner's own edit reached the workout, and the owner's comment survived every coach.
            let workout = try await training.workouts.get(world.principal(.owner), id: world.workout)
            #expect(workout.content.notes == "edited by owner")
            #expect(
                try await database.count(
                    "SELECT count(*)::int FROM workout_comments WHERE tenant_id = $1 AND comment_id = $2",
                    [world.id(.owner).rawValue, UUID(uuidString: world.comment)!]) == 1)
            await owner.close()
        }
    }

    @Test("revoking a scope or ending the link takes effect on the very next call, on a reused connection")
    func revocationIsImmediate() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock(start)
            // One connection: every call below, and the raw checks, run on the same session.
            let pool = PostgresPool(
                configuration: database.ownerConfiguration.with(role: "spotter_app"),
                options: .init(maxConnections: 1),
                logger: Logger(label: "test")
            )
            let spotter = SpotterDatabase(pool: pool)
            let training = TrainingServices(database: spotter, now: { clock.now })
            let coaching = CoachingService(database: spotter, training: training, now: { clock.now })
            let lifter = try await database.lifter("ada")
            let coach = try await database.lifter("coach_cy", kind: .coach)
            let workout = try await training.workouts.log(
                lifter, id: "", workoutDraft(at: start.addingTimeInterval(-3600), exercises: [Catalog.squat]))
            let invite = try await coaching.createInvite(coach, note: "", validDays: 0)
            _ = try await coaching.redeemInvite(
                lifter, code: invite.code!, scopes: Scope.allCases.map(\.rawValue))
            let client = lifter.tenantID.description

            let seen = try await coaching.clientWorkout(coach, client: client, workoutID: workout.id.description)
            #expect(seen.content.exercises.first?.sets.count == 3)

            let narrowed = try await coaching.setScopes(
                lifter, coach: coach.tenantID.description, scopes: ["history", "progress"])
            #expect(narrowed.scopes == [.history, .progress])
            await #expect(
                throws: SpotterError.scopeNotGranted("ada has not granted you the details scope", scope: .details)
            ) {
                try await coaching.clientWorkout(coach, client: client, workoutID: workout.id.description)
            }
            let history = try await coaching.clientHistory(
                coach, client: client, from: nil, to: nil, text: "", pageSize: 0, pageToken: "")
            #expect(history.items.map(\.id) == [workout.id])
            #expect(history.items.count == 1)
            #expect(history.items.first?.summary == nil)
            // The database agrees on the same connection: sets (progress) yes, exercises (details) no.
            try await pool.withTransaction { connection in
                try await connection.query(
                    "SELECT set_config('spotter.tenant_id', $1, true)", [coach.tenantID.rawValue])
                #expect(try await count("workout_sets", lifter.tenantID, connection) == 3)
                #expect(try await count("workout_exercises", lifter.tenantID, connection) == 0)
            }

            let ended = try await coaching.endLink(lifter, other: coach.tenantID.description)
            #expect(ended.status == .ended && ended.endedBy == .lifter)
            await #expect(throws: SpotterError.notFound("client not found")) {
                try await coaching.clientHistory(
                    coach, client: client, from: nil, to: nil, text: "", pageSize: 0, pageToken: "")
            }
            await #expect(throws: SpotterError.notFound("client not found")) {
                try await coaching.clientProgress(
                    coach, client: client, exerciseID: Catalog.squat.description, from: nil, to: nil,
                    formula: .epley)
            }
            try await pool.withTransaction { connection in
                try await connection.query(
                    "SELECT set_config('spotter.tenant_id', $1, true)", [coach.tenantID.rawValue])
                #expect(try await count("workouts", lifter.tenantID, connection) == 0)
                #expect(try await count("workout_sets", lifter.tenantID, connection) == 0)
            }
            // The coach's successful reads are all the lifter's log holds.
            let log = try await coaching.accessLog(lifter, coach: "", pageSize: 0, pageToken: "")
            #expect(log.items.map(\.method) == ["ListClientWorkouts", "GetClientWorkout"])
            await pool.shutdown()
        }
    }

    @Test("the access log holds exactly one row per successful coach read call, not per row read")
    func accessLogRowPerCall() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock(start)
            let coaching = database.coachingService(clock: clock)
            let training = database.trainingServices(clock: clock)
            let world = try await World.build(database, coaching, training, clock)
            let owner = world.principal(.owner)
            let client = world.id(.owner).description
            let baseline = try await coaching.accessLog(owner, coach: "", pageSize: 100, pageToken: "").items

            var reads: [(Role, AccessKind, String)] = []
            func read(_ role: Role, _ kind: AccessKind, _ method: String, _ body: () async throws -> Void) async throws
            {
                clock.advance(by: 60)
                try await body()
                reads.append((role, kind, method))
            }
            let full = world.principal(.coachFull)
            try await read(.coachFull, .history, "ListClientWorkouts") {
                let page = try await coaching.clientHistory(
                    full, client: client, from: nil, to: nil, text: "", pageSize: 0, pageToken: "")
                #expect(page.items.count == world.ownerWorkouts.count && page.items.count > 1)
            }
            try await read(.coachFull, .details, "GetClientWorkout") {
                _ = try await coaching.clientWorkout(full, client: client, workoutID: world.workout)
            }
            try await read(.coachFull, .progress, "GetClientProgress") {
                _ = try await coaching.clientProgress(
                    full, client: client, exerciseID: Catalog.squat.description, from: nil, to: nil, formula: .epley)
            }
            try await read(.coachFull, .statistics, "GetClientStatistics") {
                _ = try await coaching.clientStatistics(
                    full, client: client, period: .week, from: start.addingTimeInterval(-30 * 86_400), to: start)
            }
            try await read(.coachFull, .details, "ListClientComments") {
                _ = try await coaching.clientComments(full, client: client, workoutID: world.workout)
            }
            try await read(.coachFull, .overview, "ListClients") {
                let clients = try await coaching.clients(full, inactiveDays: 0)
                #expect(clients.count == 2)
            }
            try await read(.coachNoScope, .history, "ListClientWorkouts") {
                _ = try await coaching.clientHistory(
                    world.principal(.coachNoScope), client: client, from: nil, to: nil, text: "", pageSize: 0,
                    pageToken: "")
            }
            // Refused calls read nothing and add nothing.
            clock.advance(by: 60)
            await #expect(throws: SpotterError.self) {
                try await coaching.clientWorkout(
                    world.principal(.coachNoScope), client: client, workoutID: world.workout)
            }
            await #expect(throws: SpotterError.self) {
                try await coaching.clientHistory(
                    world.principal(.coachNoLink), client: client, from: nil, to: nil, text: "", pageSize: 0,
                    pageToken: "")
            }
            await #expect(throws: SpotterError.self) {
                try await coaching.clientProgress(
                    world.principal(.coachLowTier), client: client, exerciseID: Catalog.squat.description, from: nil,
                    to: nil, formula: .epley)
            }

            let log = try await coaching.accessLog(owner, coach: "", pageSize: 100, pageToken: "").items
            let added = Array(log.dropLast(baseline.count))
            #expect(Array(log.suffix(baseline.count)) == baseline)
            #expect(
                added.map { LogRow(coach: $0.coachID, kind: $0.kind, method: $0.method) }
                    == reads.reversed().map { LogRow(coach: world.id($0.0), kind: $0.1, method: $0.2) })
            #expect(added.first?.coachName == "coach_noscope")
            #expect(added.dropFirst().allSatisfy { $0.coachName == "coach_full" })

            // Filtered by coach, and paged, the same rows in the same order.
            let noScope = try await coaching.accessLog(
                owner, coach: world.id(.coachNoScope).description, pageSize: 100, pageToken: "")
            #expect(noScope.items.map(\.method) == ["ListClientWorkouts"])
            var paged: [AccessLogEntry] = []
            var token = ""
            repeat {
                let page = try await coaching.accessLog(owner, coach: "", pageSize: 3, pageToken: token)
                paged += page.items
                token = page.nextToken
            } while !token.isEmpty
            #expect(paged == log)
            // Listing clients logs one overview row for each client listed, in that client's log only.
            let other = try await coaching.accessLog(
                world.principal(.otherClient), coach: "", pageSize: 100, pageToken: "")
            #expect(other.items.map(\.method) == ["ListClients"])
            let stranger = try await coaching.accessLog(
                world.principal(.stranger), coach: "", pageSize: 100, pageToken: "")
            #expect(stranger.items.isEmpty)
        }
    }
}
