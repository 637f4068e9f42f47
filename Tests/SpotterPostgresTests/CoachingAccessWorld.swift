import Foundation
import Logging
import Postgres
import SpotterCore
import SpotterPostgres
import SpotterTestSupport
import Testing

// MARK: - The world

/// The tenants of the world. Every one but `owner` is a possible intruder on the owner's data.
enum Role: String, CaseIterable, CustomStringConvertible {
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
struct World {
    var principals: [Role: Principal]
    /// The owner's tenant: the client of every coach call.
    var client: String
    /// The owner's heavy day (squat, overhead press and the custom exercise).
    var workout: String
    /// The owner's workouts, newest first: the run, the light day, the heavy day.
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
    /// Discover on the same database and clock.
    var discover: DiscoverService
    /// The owner's body-weight measurement.
    var measurement: String
    /// Guided sessions on the same database and clock.
    var sessions: GuidedSessionService
    /// The owner's open guided session.
    var session: String
    /// Runs on the same database and clock.
    var runs: RunService
    /// The owner's run (a workout of the catalog's Run).
    var run: String

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
        world.measurement = random()
        world.session = random()
        world.run = random()
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
        var measurements: [Role: BodyMeasurement] = [:]
        var guidedSessions: [Role: String] = [:]
        var ranRuns: [Role: String] = [:]
        let runs = database.runService(clock: clock)
        let sessions = database.guidedSessionService(clock: clock)
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
            // Recorded on Pro, which body tracking needs; the role's own tier is put back after.
            try await database.asOwner { connection in
                try await connection.query(
                    "UPDATE tenants SET tier = 'pro' WHERE tenant_id = $1", [p(role).tenantID.rawValue])
            }
            measurements[role] = try await training.body.record(
                p(role), id: "",
                MeasurementDraft(
                    metric: "body_weight", measuredOn: "2026-09-01", value: 80, note: "\(name) morning weigh-in"))
            try await database.asOwner { connection in
                try await connection.query(
                    "UPDATE tenants SET tier = $2 WHERE tenant_id = $1", [p(role).tenantID.rawValue, role.tier])
            }
            mark(role, measurements[role]!.id.description, "\(name) morning weigh-in")
            let session = try await sessions.start(p(role), id: "", .empty(name: "\(name) garage session"))
            guidedSessions[role] = session.id.description
            mark(role, session.id.description, session.name)
            let run = try await runs.log(
                p(role), id: "",
                RunDraft(
                    name: "\(name) river run", startedAt: clock.now.addingTimeInterval(-12 * 3600),
                    samples: (0..<200).map { FootstepSample(offsetMilliseconds: Int64($0) * 350) }))
            ranRuns[role] = run.workout.id.description
            mark(role, run.workout.id.description, run.workout.content.name)
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
            ownerWorkouts: [WorkoutID(ranRuns[.owner]!)!, light[.owner]!.id, heavy[.owner]!.id],
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
            markers: markers,
            discover: database.discoverService(clock: clock),
            measurement: measurements[.owner]!.id.description,
            sessions: sessions,
            session: guidedSessions[.owner]!,
            runs: runs,
            run: ranRuns[.owner]!
        )
    }
}

// MARK: - Helpers

struct LogRow: Equatable, CustomStringConvertible {
    var coach: TenantID
    var kind: AccessKind
    var method: String

    var description: String { "\(method)/\(kind.rawValue) by \(coach)" }
}

/// The lifter's access log, oldest first, read past row-level security.
func accessLog(of lifter: TenantID, _ owner: PostgresConnection) async throws -> [LogRow] {
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

func attempt(_ body: () async throws -> Any) async -> Result<Any, any Error> {
    do {
        return .success(try await body())
    } catch {
        return .failure(error)
    }
}

/// Fails when `value`, printed whole, contains an id or name of a tenant not in `visible`.
func assertNoForeignData(_ value: Any, visible: Set<Role>, _ world: World, _ cell: String) {
    let text = rendered(value)
    for role in Role.allCases where !visible.contains(role) {
        for marker in world.markers[role] ?? [] where text.contains(marker) {
            Issue.record("\(cell): the answer contains \(role)'s data (\(marker))")
        }
    }
}

/// `value` printed whole, every nested field, lowercased.
func rendered(_ value: Any) -> String {
    var text = ""
    dump(value, to: &text)
    return text.lowercased()
}

func count(_ table: String, _ tenant: TenantID, _ connection: PostgresConnection) async throws -> Int {
    try await connection.query("SELECT count(*)::int AS n FROM \(table) WHERE tenant_id = $1", [tenant.rawValue])
        .single!.decode("n")
}

extension Assignment.Item {
    var description: String {
        switch self {
        case .template(let id): id.description
        case .program(let id): id.description
        }
    }
}
