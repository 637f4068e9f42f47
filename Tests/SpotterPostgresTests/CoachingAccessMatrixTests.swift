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
            await #expect(throws: SpotterError.permissionDenied("ada has not granted you the details scope")) {
                try await coaching.clientWorkout(coach, client: client, workoutID: workout.id.description)
            }
            let history = try await coaching.clientHistory(
                coach, client: client, from: nil, to: nil, text: "", pageSize: 0, pageToken: "")
            #expect(history.items.map(\.id) == [workout.id])
            #expect(history.items.first?.summary.setCount == 0)
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

// MARK: - The world

/// The tenants of the world. Every one but `owner` is a possible intruder on the owner's data.
private enum Role: String, CaseIterable, CustomStringConvertible {
    case owner
    case stranger
    case otherClient = "other_client"
    case coachNoLink = "coach_nolink"
    case coachEnded = "coach_ended"
    case coachNoScope = "coach_noscope"
    case coachLowTier = "coach_lowtier"
    case coachMid = "coach_mid"
    case coachFull = "coach_full"

    var description: String { rawValue }
    var isCoach: Bool { rawValue.hasPrefix("coach") }

    /// The tier set for each coach (lifters: the owner is Pro so their own progress is open).
    var tier: String {
        switch self {
        case .owner: "pro"
        case .stranger, .otherClient, .coachLowTier: "free"
        case .coachMid: "coach"
        case .coachNoLink, .coachEnded, .coachNoScope, .coachFull: "coach_pro"
        }
    }

    /// The tenants this one has a link with, in any status.
    var linked: Set<Role> {
        switch self {
        case .owner: [.coachFull, .coachEnded, .coachNoScope, .coachLowTier, .coachMid]
        case .otherClient: [.coachFull, .coachNoLink]
        case .stranger: []
        case .coachFull: [.owner, .otherClient]
        case .coachNoLink: [.otherClient]
        case .coachEnded, .coachNoScope, .coachLowTier, .coachMid: [.owner]
        }
    }

    /// The tenants this one has an active link with.
    var active: Set<Role> {
        switch self {
        case .owner: linked.subtracting([.coachEnded])
        case .coachEnded: []
        default: linked
        }
    }

    /// What the owner grants this coach on an active link.
    var ownerScopes: Set<Scope> {
        switch self {
        case .coachNoScope: [.history]
        case .coachLowTier, .coachMid, .coachFull: Set(Scope.allCases)
        default: []
        }
    }

    /// The coaches that commented on the owner's heavy day while setting up.
    static let commenters: Set<Role> = [.coachFull, .coachLowTier, .coachMid]
}

/// Everyone's principals and ids, and what each row passes: the owner's ids.
private struct World {
    var principals: [Role: Principal]
    /// The owner's tenant: the client of every coach call.
    var client: String
    /// The owner's heavy day (squat, overhead press and the custom exercise).
    var workout: String
    /// Both of the owner's workouts, newest first.
    var ownerWorkouts: [WorkoutID]
    /// The other client's workout, of a client coach_full and coach_nolink also have.
    var foreignWorkout: String
    /// The owner's custom exercise and its name.
    var exercise: String
    var exerciseName: String
    /// The owner's own comment on the heavy day.
    var comment: String
    /// coach_full: the owner's coach, who also coaches the other client.
    var coach: String
    /// coach_full's program, assigned to the owner, and the template its day uses.
    var program: String
    var programTemplate: String
    /// The stranger's template.
    var foreignTemplate: String
    /// Each tenant's own template of built-in exercises.
    var ownTemplates: [Role: String]
    /// Each commenting coach's comment on the heavy day.
    var ownComments: [Role: String]
    /// Text that identifies each tenant's data: ids and unique names, lowercased.
    var markers: [Role: [String]]

    func principal(_ role: Role) -> Principal { principals[role]! }
    func id(_ role: Role) -> TenantID { principals[role]!.tenantID }
    func role(of principal: Principal) -> Role {
        principals.first { $0.value.tenantID == principal.tenantID }!.key
    }

    /// The same world with every id a row passes about someone else replaced by one naming nothing.
    func randomized() -> World {
        var world = self
        func random() -> String { UUID().uuidString.lowercased() }
        world.client = random()
        world.workout = random()
        world.foreignWorkout = random()
        world.exercise = random()
        world.comment = random()
        world.coach = random()
        world.program = random()
        world.programTemplate = random()
        world.foreignTemplate = random()
        return world
    }

    static let allScopes = Scope.allCases.map(\.rawValue)

    /// The one world every cell runs in; see `Role` for the links.
    static func build(
        _ database: TestDatabase, _ coaching: CoachingService, _ training: TrainingServices, _ clock: TestClock
    )
        async throws -> World
    {
        var principals: [Role: Principal] = [:]
        for role in Role.allCases {
            principals[role] = try await database.lifter(role.rawValue, kind: role.isCoach ? .coach : .lifter)
        }
        let admin = try await database.ownerConnection()
        for role in Role.allCases {
            try await admin.query(
                "UPDATE tenants SET tier = $2 WHERE tenant_id = $1", [principals[role]!.tenantID.rawValue, role.tier])
        }
        await admin.close()
        func p(_ role: Role) -> Principal { principals[role]! }
        var markers: [Role: [String]] = [:]
        func mark(_ role: Role, _ values: String...) { markers[role, default: []] += values.map { $0.lowercased() } }
        for role in Role.allCases { mark(role, p(role).tenantID.description) }

        // Each lifter's training: a custom exercise, workouts and a comment of their own.
        var customs: [Role: Exercise] = [:]
        var heavy: [Role: Workout] = [:]
        var light: [Role: Workout] = [:]
        var comments: [Role: WorkoutComment] = [:]
        let lifterNames: [Role: String] = [.owner: "Owner", .stranger: "Stranger", .otherClient: "Otherclient"]
        for (role, name) in lifterNames {
            let custom = try await training.exercises.create(
                p(role), id: "",
                ExerciseDraft(
                    name: "\(name) Zercher Squat", category: .squat, muscleGroup: .quadriceps, equipment: .barbell,
                    instructions: ""))
            customs[role] = custom
            heavy[role] = try await training.workouts.log(
                p(role), id: "",
                workoutDraft(
                    "\(name) heavy day", at: clock.now.addingTimeInterval(-2 * 86_400),
                    exercises: [Catalog.squat, Catalog.overheadPress, custom.id], kilograms: 100))
            light[role] = try await training.workouts.log(
                p(role), id: "",
                workoutDraft(
                    "\(name) light day", at: clock.now.addingTimeInterval(-86_400), exercises: [Catalog.squat],
                    kilograms: 80))
            comments[role] = try await coaching.comment(
                p(role), workoutID: heavy[role]!.id.description, exerciseIndex: 0, setIndex: 1,
                body: "\(name) felt strong")
            mark(
                role, custom.id.description, custom.name, heavy[role]!.id.description, heavy[role]!.content.name,
                light[role]!.id.description, light[role]!.content.name, comments[role]!.id.uuidString)
        }
        // Everyone's own template of built-in exercises (what a coach may assign).
        var templates: [Role: String] = [:]
        for role in Role.allCases {
            let template = try await training.templates.create(
                p(role), id: "",
                TemplateDraft(
                    name: "\(role.rawValue) plan",
                    items: [TemplateItemDraft(exerciseID: Catalog.squat.description, targetSets: 3, repsMin: 5)]))
            templates[role] = template.id.description
            mark(role, template.id.description)
        }

        // Links, made every way the service offers.
        func invite(_ coach: Role, _ lifter: Role, _ scopes: [String]) async throws {
            let code = try await coaching.createInvite(p(coach), note: "", validDays: 0).code!
            _ = try await coaching.redeemInvite(p(lifter), code: code, scopes: scopes)
        }
        try await invite(.coachFull, .owner, allScopes)
        try await invite(.coachFull, .otherClient, allScopes)
        try await invite(.coachNoLink, .otherClient, allScopes)
        try await invite(.coachNoScope, .owner, ["history"])
        _ = try await coaching.inviteClient(p(.coachLowTier), username: "owner")
        _ = try await coaching.respond(
            p(.owner), other: p(.coachLowTier).tenantID.description, accept: true, scopes: allScopes)
        for coach in [Role.coachMid, .coachEnded] {
            _ = try await coaching.requestCoach(p(.owner), username: coach.rawValue, scopes: allScopes)
            _ = try await coaching.respond(p(coach), other: p(.owner).tenantID.description, accept: true, scopes: [])
        }
        // The ended coach had full access once.
        _ = try await coaching.clientWorkout(
            p(.coachEnded), client: p(.owner).tenantID.description, workoutID: heavy[.owner]!.id.description)
        _ = try await coaching.endLink(p(.owner), other: p(.coachEnded).tenantID.description)

        // coach_full's program, assigned to the owner.
        let programTemplate = try await training.templates.create(
            p(.coachFull), id: "",
            TemplateDraft(
                name: "Full block day",
                items: [TemplateItemDraft(exerciseID: Catalog.deadlift.description, targetSets: 5, repsMin: 3)]))
        let program = try await coaching.createProgram(
            p(.coachFull), id: "",
            ProgramDraft(
                name: "Full block", weeks: 1,
                days: [ProgramDraft.Day(week: 1, weekday: 1, templateID: programTemplate.id.description)]))
        _ = try await coaching.assign(
            p(.coachFull), client: p(.owner).tenantID.description, templateID: "",
            programID: program.id.description, note: "")
        mark(.coachFull, programTemplate.id.description, program.id.description)

        // Coaches with the details scope comment on the heavy day.
        var ownComments: [Role: String] = [:]
        for coach in Role.commenters.sorted(by: { $0.rawValue < $1.rawValue }) {
            let comment = try await coaching.commentAsCoach(
                p(coach), client: p(.owner).tenantID.description, workoutID: heavy[.owner]!.id.description,
                exerciseIndex: nil, setIndex: nil, body: "\(coach.rawValue) says brace harder")
            ownComments[coach] = comment.id.uuidString.lowercased()
            mark(.owner, comment.id.uuidString)
        }

        return World(
            principals: principals,
            client: p(.owner).tenantID.description,
            workout: heavy[.owner]!.id.description,
            ownerWorkouts: [light[.owner]!.id, heavy[.owner]!.id],
            foreignWorkout: heavy[.otherClient]!.id.description,
            exercise: customs[.owner]!.id.description,
            exerciseName: customs[.owner]!.name,
            comment: comments[.owner]!.id.uuidString.lowercased(),
            coach: p(.coachFull).tenantID.description,
            program: program.id.description,
            programTemplate: programTemplate.id.description,
            foreignTemplate: templates[.stranger]!,
            ownTemplates: templates,
            ownComments: ownComments,
            markers: markers
        )
    }
}

// MARK: - The rows

private enum Outcome: CustomStringConvertible {
    case success
    case failure(SpotterError)

    var description: String {
        switch self {
        case .success: "success"
        case .failure(let error): "\(error)"
        }
    }
}

/// One call of the matrix, with what each caller must get.
private struct Row {
    typealias Call = (CoachingService, TrainingServices, Principal, World) async throws -> Any

    var name: String
    var call: Call
    /// The exact answer for each caller; `nil` where the call does not apply.
    var expected: (Role) -> Outcome?
    /// The access-log row a successful call by the caller adds to the owner's log.
    var logs: (Role) -> (kind: AccessKind, method: String)? = { _ in nil }
    /// Whose data a successful answer to the caller may contain.
    var visible: (Role) -> Set<Role> = { [$0] }
    /// The world in which the same call names nothing that exists.
    var twin: (World) -> World = { $0.randomized() }
    /// Further checks of a successful answer.
    var check: (Role, Any, World) -> Void = { _, _, _ in }
}

private let coachOnly = SpotterError.permissionDenied("this call is for coach accounts")
private let lifterOnly = SpotterError.permissionDenied("this call is for lifter accounts")
private let clientNotFound = SpotterError.notFound("client not found")
private let freeCoachProgress = SpotterError.permissionDenied(
    "a client's progress needs the Coach tier (or Coach Pro for every exercise)")

private func coachProProgress(_ exercise: String) -> SpotterError {
    .permissionDenied(
        "a client's progress for \(exercise) needs the Coach Pro tier; the Coach tier covers Barbell Back Squat, "
            + "Barbell Bench Press and Barbell Deadlift")
}

/// A lifter-facing call: the owner's answer, the other lifters' and the coaches'; `except` overrides.
private func lifterCall(
    owner: Outcome?, lifters: Outcome?, coaches: Outcome?, except: [Role: Outcome?] = [:]
) -> (Role) -> Outcome? {
    { role in
        if let special = except[role] { return special }
        return role == .owner ? owner : role.isCoach ? coaches : lifters
    }
}

/// A coach call about the owner: lifters are told it is for coaches, a coach without an active
/// link does not find the client, a missing scope is named, then the tier decides.
private func coachCall(needs scope: Scope?, tier refusals: [Role: SpotterError] = [:]) -> (Role) -> Outcome? {
    { role in
        guard role.isCoach else { return .failure(coachOnly) }
        guard Role.owner.active.contains(role) else { return .failure(clientNotFound) }
        if let scope, !role.ownerScopes.contains(scope) {
            return .failure(.permissionDenied("owner has not granted you the \(scope.rawValue) scope"))
        }
        if let refusal = refusals[role] { return .failure(refusal) }
        return .success
    }
}

/// What a coach read adds to the owner's log.
private func logged(_ kind: AccessKind, _ method: String) -> (Role) -> (kind: AccessKind, method: String)? {
    { _ in (kind, method) }
}

private func coachAndOwner(_ role: Role) -> Set<Role> { [role, .owner] }

private func expectValue<T>(_ value: Any, as type: T.Type, _ role: Role, _ body: (T) -> Void) {
    guard let typed = value as? T else {
        Issue.record("as \(role): answered \(Swift.type(of: value)), not \(T.self)")
        return
    }
    body(typed)
}

private func matrixRows() -> [Row] {
    let workoutNotFound = Outcome.failure(.notFound("workout not found"))
    let exerciseNotFound = Outcome.failure(.notFound("exercise not found"))
    let templateNotFound = Outcome.failure(.notFound("template not found"))
    let programNotFound = Outcome.failure(.notFound("program not found"))
    let commentNotFound = Outcome.failure(.notFound("comment not found"))
    let coachNotFound = Outcome.failure(.notFound("coach not found"))
    let noPending = Outcome.failure(.notFound("no pending request to answer"))
    let coachesRefused = Outcome.failure(lifterOnly)
    let statisticsFrom = Date(timeIntervalSince1970: 1_790_000_000 - 30 * 86_400)
    let statisticsTo = Date(timeIntervalSince1970: 1_790_000_000 + 86_400)

    let lifterRows: [Row] = [
        Row(
            name: "training.workouts.get (owner's workout)",
            call: { _, training, p, w in try await training.workouts.get(p, id: w.workout) },
            expected: lifterCall(owner: .success, lifters: workoutNotFound, coaches: workoutNotFound),
            check: { _, value, w in
                expectValue(value, as: Workout.self, .owner) { #expect($0.id.description == w.workout) }
            }
        ),
        Row(
            name: "training.workouts.update (owner's workout)",
            call: { _, training, p, w in
                try await training.workouts.update(
                    p, id: w.workout, WorkoutPatch(notes: "edited by \(w.role(of: p))"), expectedVersion: nil)
            },
            expected: lifterCall(owner: .success, lifters: workoutNotFound, coaches: workoutNotFound)
        ),
        Row(
            name: "training.workouts.delete (owner's workout)",
            call: { _, training, p, w in
                try await training.workouts.delete(p, id: w.workout)
                return "deleted"
            },
            expected: lifterCall(owner: nil, lifters: workoutNotFound, coaches: workoutNotFound)
        ),
        Row(
            name: "training.workouts.history (own)",
            call: { _, training, p, _ in
                try await training.workouts.history(p, from: nil, to: nil, text: "", pageSize: 0, pageToken: "")
            },
            expected: lifterCall(owner: .success, lifters: .success, coaches: .success),
            check: { role, value, w in
                expectValue(value, as: Page<WorkoutEntry>.self, role) { page in
                    if role == .owner { #expect(page.items.map(\.id) == w.ownerWorkouts) }
                    if role.isCoach { #expect(page.items.isEmpty, "as \(role)") }
                }
            }
        ),
        Row(
            name: "training.exercises.get (owner's custom exercise)",
            call: { _, training, p, w in try await training.exercises.get(p, w.exercise) },
            expected: lifterCall(owner: .success, lifters: exerciseNotFound, coaches: exerciseNotFound)
        ),
        Row(
            name: "training.progress.progress (owner's custom exercise)",
            call: { _, training, p, w in
                try await training.progress.progress(p, exerciseID: w.exercise, from: nil, to: nil, formula: .epley)
            },
            expected: lifterCall(owner: .success, lifters: exerciseNotFound, coaches: exerciseNotFound),
            check: { role, value, _ in
                expectValue(value, as: ProgressReport.self, role) { #expect($0.points.count == 1) }
            }
        ),
        Row(
            name: "training.progress.results (owner's custom exercise)",
            call: { _, training, p, w in
                try await training.progress.results(p, exerciseID: w.exercise, pageSize: 0, pageToken: "")
            },
            expected: lifterCall(owner: .success, lifters: exerciseNotFound, coaches: exerciseNotFound)
        ),
        Row(
            name: "training.templates.get (coach_full's template assigned to the owner)",
            call: { _, training, p, w in try await training.templates.get(p, id: w.programTemplate) },
            expected: lifterCall(
                owner: .success, lifters: templateNotFound, coaches: templateNotFound, except: [.coachFull: .success]),
            visible: { $0 == .owner ? [.owner, .coachFull] : [$0] }
        ),
        Row(
            name: "coaching.program (coach_full's program assigned to the owner)",
            call: { coaching, _, p, w in try await coaching.program(p, id: w.program) },
            expected: lifterCall(
                owner: .success, lifters: programNotFound, coaches: programNotFound, except: [.coachFull: .success]),
            visible: { $0 == .owner ? [.owner, .coachFull] : [$0] }
        ),
        Row(
            name: "coaching.follow (coach_full's program assigned to the owner)",
            call: { coaching, _, p, w in try await coaching.follow(p, programID: w.program, startOn: "") },
            expected: lifterCall(owner: .success, lifters: programNotFound, coaches: coachesRefused),
            visible: { $0 == .owner ? [.owner, .coachFull] : [$0] }
        ),
        Row(
            name: "coaching.comments (owner's workout)",
            call: { coaching, _, p, w in try await coaching.comments(p, workoutID: w.workout) },
            expected: lifterCall(owner: .success, lifters: workoutNotFound, coaches: workoutNotFound),
            visible: { $0 == .owner ? Role.commenters.union([.owner]) : [$0] },
            check: { role, value, w in
                expectValue(value, as: [WorkoutComment].self, role) { comments in
                    #expect(comments.map { $0.id.uuidString.lowercased() }.contains(w.comment))
                    #expect(comments.count == 1 + Role.commenters.count)
                }
            }
        ),
        Row(
            name: "coaching.comment (owner's workout)",
            call: { coaching, _, p, w in
                try await coaching.comment(p, workoutID: w.workout, exerciseIndex: nil, setIndex: nil, body: "mine?")
            },
            expected: lifterCall(owner: .success, lifters: workoutNotFound, coaches: coachesRefused)
        ),
        Row(
            name: "coaching.deleteComment (owner's comment)",
            call: { coaching, _, p, w in
                try await coaching.deleteComment(p, id: w.comment)
                return "deleted"
            },
            expected: lifterCall(owner: nil, lifters: commentNotFound, coaches: coachesRefused)
        ),
        Row(
            name: "coaching.accessLog (own)",
            call: { coaching, _, p, _ in try await coaching.accessLog(p, coach: "", pageSize: 100, pageToken: "") },
            expected: lifterCall(owner: .success, lifters: .success, coaches: coachesRefused),
            // The ended coach read once before the link ended.
            visible: { $0.linked.union([$0]) },
            check: { role, value, _ in
                expectValue(value, as: Page<AccessLogEntry>.self, role) { page in
                    if role == .stranger { #expect(page.items.isEmpty) }
                    if role == .owner { #expect(!page.items.isEmpty) }
                }
            }
        ),
        Row(
            name: "coaching.accessLog (own, for the owner's coach)",
            call: { coaching, _, p, w in
                try await coaching.accessLog(p, coach: w.coach, pageSize: 100, pageToken: "")
            },
            expected: lifterCall(owner: .success, lifters: .success, coaches: coachesRefused),
            visible: { $0.active.union([$0]) },
            check: { role, value, w in
                expectValue(value, as: Page<AccessLogEntry>.self, role) { page in
                    #expect(page.items.allSatisfy { $0.coachID.description == w.coach })
                    if role == .stranger { #expect(page.items.isEmpty) }
                }
            }
        ),
        Row(
            name: "coaching.setScopes (the owner's coach)",
            call: { coaching, _, p, w in
                try await coaching.setScopes(p, coach: w.coach, scopes: World.allScopes)
            },
            // The other client has their own link with the same coach.
            expected: lifterCall(
                owner: .success, lifters: coachNotFound, coaches: coachesRefused, except: [.otherClient: .success]),
            visible: { $0.active.union([$0]) },
            check: { role, value, _ in
                expectValue(value, as: CoachLink.self, role) { #expect($0.scopes == Set(Scope.allCases)) }
            }
        ),
        Row(
            name: "coaching.endLink (the owner's coach)",
            call: { coaching, _, p, w in try await coaching.endLink(p, other: w.coach) },
            expected: lifterCall(
                owner: nil, lifters: coachNotFound, coaches: .failure(clientNotFound), except: [.otherClient: nil])
        ),
        Row(
            name: "coaching.respond (the owner's coach)",
            call: { coaching, _, p, w in
                try await coaching.respond(p, other: w.coach, accept: true, scopes: World.allScopes)
            },
            expected: lifterCall(owner: noPending, lifters: noPending, coaches: noPending)
        ),
        Row(
            name: "coaching.links (own, closed too)",
            call: { coaching, _, p, _ in try await coaching.links(p, includeClosed: true) },
            expected: lifterCall(owner: .success, lifters: .success, coaches: .success),
            visible: { $0.linked.union([$0]) },
            check: { role, value, w in
                expectValue(value, as: [CoachLink].self, role) { links in
                    let others = links.map { $0.lifterID == w.id(role) ? $0.coachID : $0.lifterID }
                    #expect(Set(others) == Set(role.linked.map(w.id)), "as \(role)")
                }
            }
        ),
        Row(
            name: "coaching.assignments (own; a coach's for the owner)",
            call: { coaching, _, p, w in try await coaching.assignments(p, client: w.client) },
            expected: lifterCall(owner: .success, lifters: .success, coaches: .success),
            visible: { $0.isCoach ? [$0, .owner] : $0.active.union([$0]) },
            check: { role, value, w in
                expectValue(value, as: [Assignment].self, role) { assignments in
                    switch role {
                    case .owner, .coachFull: #expect(assignments.map(\.item.description) == [w.program], "as \(role)")
                    default: #expect(assignments.isEmpty, "as \(role)")
                    }
                }
            }
        ),
    ]

    let coachRows: [Row] = [
        Row(
            name: "coaching.clients",
            call: { coaching, _, p, _ in try await coaching.clients(p, inactiveDays: 0) },
            expected: { $0.isCoach ? .success : .failure(coachOnly) },
            logs: { Role.owner.active.contains($0) ? (.overview, "ListClients") : nil },
            visible: { $0.active.union([$0]) },
            check: { role, value, w in
                expectValue(value, as: [ClientSummary].self, role) { clients in
                    #expect(Set(clients.map(\.link.lifterID)) == Set(role.active.map(w.id)), "as \(role)")
                    if let owner = clients.first(where: { $0.link.lifterID == w.id(.owner) }) {
                        #expect(owner.lastWorkoutAt != nil, "as \(role)")
                        #expect(owner.workoutsThisWeek != nil, "as \(role)")
                    }
                }
            }
        ),
        Row(
            name: "coaching.clientHistory",
            call: { coaching, _, p, w in
                try await coaching.clientHistory(
                    p, client: w.client, from: nil, to: nil, text: "", pageSize: 0, pageToken: "")
            },
            expected: coachCall(needs: .history),
            logs: logged(.history, "ListClientWorkouts"),
            visible: coachAndOwner,
            check: { role, value, w in
                expectValue(value, as: Page<WorkoutEntry>.self, role) { page in
                    #expect(page.items.map(\.id) == w.ownerWorkouts, "as \(role)")
                    // Sets, reps and volume only with the details scope.
                    let details = role.ownerScopes.contains(.details)
                    #expect(page.items.allSatisfy { ($0.summary.setCount > 0) == details }, "as \(role)")
                }
            }
        ),
        Row(
            name: "coaching.clientWorkout",
            call: { coaching, _, p, w in try await coaching.clientWorkout(p, client: w.client, workoutID: w.workout) },
            expected: coachCall(needs: .details),
            logs: logged(.details, "GetClientWorkout"),
            visible: coachAndOwner,
            check: { role, value, w in
                expectValue(value, as: Workout.self, role) { workout in
                    #expect(workout.id.description == w.workout)
                    #expect(workout.content.exercises.map(\.sets.count) == [3, 3, 3])
                    #expect(workout.exerciseNames[ExerciseID(w.exercise)!] == w.exerciseName, "as \(role)")
                }
            }
        ),
        Row(
            name: "coaching.clientWorkout (another client's workout id)",
            call: { coaching, _, p, w in
                try await coaching.clientWorkout(p, client: w.client, workoutID: w.foreignWorkout)
            },
            expected: { role in
                coachCall(needs: .details)(role).map { outcome in
                    if case .success = outcome { return workoutNotFound }
                    return outcome
                }
            },
            twin: { world in
                var world = world
                world.foreignWorkout = UUID().uuidString.lowercased()
                return world
            }
        ),
        Row(
            name: "coaching.clientProgress (squat)",
            call: { coaching, _, p, w in
                try await coaching.clientProgress(
                    p, client: w.client, exerciseID: Catalog.squat.description, from: nil, to: nil, formula: .epley)
            },
            expected: coachCall(needs: .progress, tier: [.coachLowTier: freeCoachProgress]),
            logs: logged(.progress, "GetClientProgress"),
            visible: coachAndOwner,
            check: { role, value, _ in
                expectValue(value, as: ProgressReport.self, role) { report in
                    #expect(report.points.count == 2, "as \(role)")
                    #expect(report.records.heaviest?.set.weight == Mass(kilograms: 100), "as \(role)")
                }
            }
        ),
        Row(
            name: "coaching.clientProgress (overhead press)",
            call: { coaching, _, p, w in
                try await coaching.clientProgress(
                    p, client: w.client, exerciseID: Catalog.overheadPress.description, from: nil, to: nil,
                    formula: .epley)
            },
            expected: coachCall(
                needs: .progress,
                tier: [.coachLowTier: freeCoachProgress, .coachMid: coachProProgress("Overhead Press")]),
            logs: logged(.progress, "GetClientProgress"),
            visible: coachAndOwner,
            check: { role, value, _ in
                expectValue(value, as: ProgressReport.self, role) { #expect($0.points.count == 1, "as \(role)") }
            }
        ),
        Row(
            name: "coaching.clientProgress (the owner's custom exercise)",
            call: { coaching, _, p, w in
                try await coaching.clientProgress(
                    p, client: w.client, exerciseID: w.exercise, from: nil, to: nil, formula: .epley)
            },
            expected: coachCall(
                needs: .progress,
                tier: [.coachLowTier: freeCoachProgress, .coachMid: coachProProgress("Owner Zercher Squat")]),
            logs: logged(.progress, "GetClientProgress"),
            visible: coachAndOwner,
            check: { role, value, w in
                expectValue(value, as: ProgressReport.self, role) { report in
                    #expect(report.exercise.id.description == w.exercise, "as \(role)")
                    #expect(report.points.count == 1, "as \(role)")
                }
            }
        ),
        Row(
            name: "coaching.clientStatistics",
            call: { coaching, _, p, w in
                try await coaching.clientStatistics(
                    p, client: w.client, period: .month, from: statisticsFrom, to: statisticsTo)
            },
            expected: coachCall(
                needs: .progress,
                tier: [.coachLowTier: .permissionDenied("a client's statistics need the Coach tier")]),
            logs: logged(.statistics, "GetClientStatistics"),
            visible: coachAndOwner,
            check: { role, value, _ in
                expectValue(value, as: [StatisticsBucket].self, role) { buckets in
                    #expect(buckets.map(\.workouts).reduce(0, +) == 2, "as \(role)")
                    #expect(buckets.map(\.setCount).reduce(0, +) == 12, "as \(role)")
                }
            }
        ),
        Row(
            name: "coaching.clientComments",
            call: { coaching, _, p, w in try await coaching.clientComments(p, client: w.client, workoutID: w.workout) },
            expected: coachCall(needs: .details),
            logs: logged(.details, "ListClientComments"),
            visible: { Role.commenters.union([$0, .owner]) },
            check: { role, value, w in
                expectValue(value, as: [WorkoutComment].self, role) { comments in
                    #expect(comments.map { $0.id.uuidString.lowercased() }.contains(w.comment), "as \(role)")
                }
            }
        ),
        Row(
            name: "coaching.commentAsCoach",
            call: { coaching, _, p, w in
                try await coaching.commentAsCoach(
                    p, client: w.client, workoutID: w.workout, exerciseIndex: 1, setIndex: 0, body: "elbows in")
            },
            expected: coachCall(needs: .details),
            logs: logged(.details, "CommentOnClientWorkout"),
            visible: coachAndOwner,
            check: { role, value, w in
                expectValue(value, as: WorkoutComment.self, role) { comment in
                    #expect(comment.authorID == w.id(role) && comment.authorSide == .coach, "as \(role)")
                    #expect(comment.workoutID.description == w.workout)
                }
            }
        ),
        Row(
            name: "coaching.assign (a template of the caller's own)",
            call: { coaching, _, p, w in
                try await coaching.assign(
                    p, client: w.client, templateID: w.ownTemplates[w.role(of: p)]!, programID: "", note: "")
            },
            expected: coachCall(needs: nil),
            visible: coachAndOwner,
            check: { role, value, w in
                expectValue(value, as: Assignment.self, role) { assignment in
                    #expect(assignment.lifterID == w.id(.owner) && assignment.coachID == w.id(role))
                }
            }
        ),
        Row(
            name: "coaching.assign (the stranger's template)",
            call: { coaching, _, p, w in
                try await coaching.assign(p, client: w.client, templateID: w.foreignTemplate, programID: "", note: "")
            },
            expected: { $0.isCoach ? templateNotFound : .failure(coachOnly) }
        ),
        Row(
            name: "coaching.deleteCommentAsCoach (the caller's own comment)",
            call: { coaching, _, p, w in
                try await coaching.deleteCommentAsCoach(
                    p, client: w.client, id: w.ownComments[w.role(of: p)] ?? w.comment)
                return "deleted"
            },
            expected: coachCall(needs: .details),
            logs: logged(.details, "DeleteClientComment")
        ),
        Row(
            name: "coaching.deleteCommentAsCoach (the owner's own comment)",
            call: { coaching, _, p, w in
                try await coaching.deleteCommentAsCoach(p, client: w.client, id: w.comment)
                return "deleted"
            },
            expected: { role in
                coachCall(needs: .details)(role).map { outcome in
                    if case .success = outcome { return commentNotFound }
                    return outcome
                }
            },
            twin: { world in
                var world = world
                world.comment = UUID().uuidString.lowercased()
                return world
            }
        ),
    ]
    return lifterRows + coachRows
}

// MARK: - Helpers

private struct LogRow: Equatable, CustomStringConvertible {
    var coach: TenantID
    var kind: AccessKind
    var method: String

    var description: String { "\(method)/\(kind.rawValue) by \(coach)" }
}

/// The lifter's access log, oldest first, read past row-level security.
private func accessLog(of lifter: TenantID, _ owner: PostgresConnection) async throws -> [LogRow] {
    try await owner.query(
        "SELECT coach_id, data, method FROM coach_access_log WHERE tenant_id = $1 ORDER BY access_id",
        [lifter.rawValue]
    ).map { row in
        LogRow(
            coach: TenantID(rawValue: try row.decode("coach_id")),
            kind: AccessKind(rawValue: try row.decode("data"))!,
            method: try row.decode("method"))
    }
}

private func attempt(_ body: () async throws -> Any) async -> Result<Any, any Error> {
    do {
        return .success(try await body())
    } catch {
        return .failure(error)
    }
}

/// Fails when `value`, printed whole, contains an id or name of a tenant not in `visible`.
private func assertNoForeignData(_ value: Any, visible: Set<Role>, _ world: World, _ cell: String) {
    let text = rendered(value)
    for role in Role.allCases where !visible.contains(role) {
        for marker in world.markers[role] ?? [] where text.contains(marker) {
            Issue.record("\(cell): the answer contains \(role)'s data (\(marker))")
        }
    }
}

/// `value` printed whole, every nested field, lowercased.
private func rendered(_ value: Any) -> String {
    var text = ""
    dump(value, to: &text)
    return text.lowercased()
}

private func count(_ table: String, _ tenant: TenantID, _ connection: PostgresConnection) async throws -> Int {
    try await connection.query("SELECT count(*)::int AS n FROM \(table) WHERE tenant_id = $1", [tenant.rawValue])
        .single!.decode("n")
}

extension Assignment.Item {
    fileprivate var description: String {
        switch self {
        case .template(let id): id.description
        case .program(let id): id.description
        }
    }
}
