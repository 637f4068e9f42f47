import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2
import SpotterProto

/// A signed-in tenant of the benchmark: a lifter, or for coach scenarios a coach and the client
/// it reads.
struct Lifter: Sendable {
    let metadata: Metadata
    var clientID = ""
    /// The lifter's open guided session (the session scenario).
    var sessionID = ""
}

/// Creating (or reusing) the lifters a scenario needs, with their data.
enum Lifters {
    static let password = "benchmark password 1"

    /// `registered`: the lifters exist (a second sign-in, for fresh tokens); registering a taken
    /// name again counts as a failed sign-in, and enough of those lock the address out.
    static func prepare(
        scenario: LoadGenerator.Scenario,
        count: Int,
        prefix: String,
        client: GRPCClient<HTTP2ClientTransport.Posix>,
        registered: Bool = false
    ) async throws -> [Lifter] {
        var lifters: [Lifter] = []
        for index in 0..<count {
            let name = "\(prefix)_\(scenario.rawValue.filter(\.isLetter))_\(index)"
            var lifter = try await signIn(name, client, register: !registered)
            try await seed(scenario, lifter, client)
            if scenario == .session { lifter.sessionID = try await openSession(lifter, client) }
            if scenario == .coachHistory {
                lifters.append(try await coach(of: lifter, named: name + "c", client, registered: registered))
            } else {
                lifters.append(lifter)
            }
        }
        return lifters
    }

    /// The lifter's open guided session, or a new one: squats, 5 sets of 5 resting 90 s.
    private static func openSession(_ lifter: Lifter, _ client: GRPCClient<HTTP2ClientTransport.Posix>)
        async throws -> String
    {
        let sessions = Spotter_V1_SessionService.Client(wrapping: client)
        let listed = try await sessions.listGuidedSessions(.with { $0.limit = 1 }, metadata: lifter.metadata)
        if let open = listed.sessions.first, open.status == .active { return open.sessionID }
        let session = try await sessions.startSession(.with { $0.emptyName = "Benchmark" }, metadata: lifter.metadata)
        let set = Spotter_V1_SetInput.with {
            $0.reps = 5
            $0.restSeconds = 90
        }
        _ = try await sessions.addExercise(
            .with {
                $0.sessionID = session.sessionID
                $0.exerciseID = Workouts.squat
                $0.sets = Array(repeating: set, count: 5)
            }, metadata: lifter.metadata)
        return session.sessionID
    }

    /// A coach linked to `lifter` with the history and details scopes (an invite code redeemed once).
    private static func coach(
        of lifter: Lifter, named name: String, _ client: GRPCClient<HTTP2ClientTransport.Posix>, registered: Bool
    ) async throws -> Lifter {
        var coach = try await signIn(name, client, kind: .coach, register: !registered)
        let coachService = Spotter_V1_CoachService.Client(wrapping: client)
        if try await coachService.listClients(.init(), metadata: coach.metadata).clients.isEmpty {
            let invite = try await coachService.createInvite(.init(), metadata: coach.metadata)
            _ = try await Spotter_V1_CoachingService.Client(wrapping: client).redeemInvite(
                .with {
                    $0.code = invite.code
                    $0.scopes = ["history", "details"]
                }, metadata: lifter.metadata)
        }
        let links = try await Spotter_V1_CoachingService.Client(wrapping: client).listLinks(
            .init(), metadata: coach.metadata)
        coach.clientID = links.links.first { $0.status == .active }?.lifterID ?? ""
        return coach
    }

    static func signIn(
        _ name: String, _ client: GRPCClient<HTTP2ClientTransport.Posix>, kind: Spotter_V1_TenantKind = .lifter,
        register: Bool = true
    ) async throws -> Lifter {
        let auth = Spotter_V1_AuthService.Client(wrapping: client)
        if register {
            do {
                _ = try await auth.register(
                    .with {
                        $0.email = "\(name)@bench.invalid"
                        $0.username = name
                        $0.password = password
                        $0.kind = kind
                    })
            } catch let error as RPCError where error.code == .alreadyExists {
                // A rerun with the same prefix reuses the lifter and its data.
            }
        }
        let tokens = try await auth.signIn(
            .with {
                $0.login = name
                $0.password = password
                $0.deviceLabel = "spotter-load"
            })
        return Lifter(metadata: ["authorization": "Bearer \(tokens.accessToken)"])
    }

    /// History: 200 workouts of 10 sets (2,000 sets). Progress: three workouts a week for a year.
    private static func seed(
        _ scenario: LoadGenerator.Scenario,
        _ lifter: Lifter,
        _ client: GRPCClient<HTTP2ClientTransport.Posix>
    ) async throws {
        let workouts = Spotter_V1_WorkoutService.Client(wrapping: client)
        let existing = try await workouts.listWorkouts(.with { $0.page.pageSize = 1 }, metadata: lifter.metadata)
        guard existing.workouts.isEmpty else { return }
        let now = Date()
        let count: Int
        let spacing: TimeInterval
        switch scenario {
        case .log, .sync, .portal, .transfer, .run, .session: return
        case .achievements, .logTenYears:
            let sync = Spotter_V1_SyncService.Client(wrapping: client)
            let device = try await sync.registerDevice(.with { $0.label = "seed" }, metadata: lifter.metadata)
            _ = try await SyncBenchmark.pushTenYears(sync, device: device.deviceID, lifter)
            return
        case .history, .coachHistory: (count, spacing) = (200, 86_400)
        case .progress: (count, spacing) = (156, 365 * 86_400 / 156)
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<count {
                if index >= 8 { try await group.next() }
                group.addTask {
                    let startedAt = now.addingTimeInterval(-Double(index) * spacing - 3600)
                    _ = try await workouts.logWorkout(
                        .with { $0.workout = Workouts.tenSets(at: startedAt, progression: Double(count - index)) },
                        metadata: lifter.metadata)
                }
            }
            try await group.waitForAll()
        }
    }
}

/// The workout every scenario logs: squat and bench press, 5 sets each.
enum Workouts {
    static let squat = "c0000000-0000-4000-8000-000000000001"
    static let bench = "c0000000-0000-4000-8000-000000000002"

    static func tenSets(at startedAt: Date, progression: Double = 0) -> Spotter_V1_WorkoutInput {
        .with {
            $0.name = "Squat and bench"
            $0.startedAt = .at(startedAt)
            $0.durationSeconds = 3600
            $0.exercises = [
                fiveSets(of: squat, from: 100 + (progression * 0.25).rounded(), rpe: true),
                fiveSets(of: bench, from: 70 + (progression * 0.25).rounded(), rpe: true),
            ]
        }
    }

    /// Five working sets of 5 reps of `exercise`, from `base` kg up by 2.5 kg a set; with `rpe`,
    /// RPE 7 rising by half a point a set.
    static func fiveSets(of exercise: String, from base: Double, rpe: Bool) -> Spotter_V1_WorkoutExerciseInput {
        .with {
            $0.exerciseID = exercise
            $0.sets = (0..<5).map { set in
                .with {
                    $0.reps = 5
                    $0.weight = .with {
                        $0.value = base + Double(set) * 2.5
                        $0.unit = .kg
                    }
                    if rpe { $0.rpe = 7 + Double(set) * 0.5 }
                    $0.type = .working
                }
            }
        }
    }
}

/// The run every `run` call logs.
enum Runs {
    /// 30 minutes at 170 steps a minute, heading north at 3 m/s with a compass, except a pause of
    /// 5 s and one of 3 s in minute 3 and a zig-zag (±45° every 6 s) through minute 10.
    static let thirtyMinutes: [Spotter_V1_FootstepSample] = {
        var samples: [Spotter_V1_FootstepSample] = []
        let step = 60.0 / 170
        var (t, north, east) = (0.0, 0.0, 0.0)
        while t <= 1800 {
            let zig = t >= 540 && t < 600
            let heading = zig ? (Int((t - 540) / 6) % 2 == 0 ? 45.0 : 315.0) : 0
            samples.append(
                .with {
                    $0.offsetMs = Int64((t * 1000).rounded())
                    $0.latitude = 51.5 + north / 111_195
                    $0.longitude = -0.12 + east / 69_250
                    $0.headingDegrees = heading
                })
            let radians = heading * .pi / 180
            north += 3 * step * cos(radians)
            east += 3 * step * sin(radians)
            t += step
            if samples.count == 400 { t += 5 }
            if samples.count == 440 { t += 3 }
        }
        return samples
    }()
}
