import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2
import SpotterProto

/// The data of the coach portal benchmark (`Benchmarks/portal.sh`), made through the API: a coach
/// and its clients, each client linked by an invite code redeemed with every scope. Reruns with the
/// same prefix reuse what exists.
enum PortalSeed {
    static func run(clients count: Int, prefix: String, client: GRPCClient<HTTP2ClientTransport.Posix>) async throws {
        let coachName = "\(prefix)_portal_coach"
        let coach = try await Lifters.signIn(coachName, client, kind: .coach)
        let coachService = Spotter_V1_CoachService.Client(wrapping: client)
        let coachingService = Spotter_V1_CoachingService.Client(wrapping: client)
        let workouts = Spotter_V1_WorkoutService.Client(wrapping: client)
        let linked = Set(
            try await coachService.listClients(.init(), metadata: coach.metadata).clients.map(\.link.lifterID))
        let now = Date()
        var progressClient = ""
        for index in 0..<count {
            let lifter = try await Lifters.signIn("\(prefix)_portal_\(index)", client)
            let profile = try await Spotter_V1_AccountService.Client(wrapping: client).getProfile(
                .init(), metadata: lifter.metadata)
            if index == 0 { progressClient = profile.tenantID }
            guard !linked.contains(profile.tenantID) else { continue }
            // The first client trained three times a week for a year; the others three times in two weeks.
            let (sessions, spacing): (Int, TimeInterval) = index == 0 ? (156, 365 * 86_400 / 156) : (3, 4 * 86_400)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for session in 0..<sessions {
                    if session >= 8 { try await group.next() }
                    group.addTask {
                        let startedAt = now.addingTimeInterval(-Double(session) * spacing - 3600)
                        _ = try await workouts.logWorkout(
                            .with {
                                $0.workout = Workouts.tenSets(at: startedAt, progression: Double(sessions - session))
                            }, metadata: lifter.metadata)
                    }
                }
                try await group.waitForAll()
            }
            let invite = try await coachService.createInvite(.init(), metadata: coach.metadata)
            _ = try await coachingService.redeemInvite(
                .with {
                    $0.code = invite.code
                    $0.scopes = ["history", "details", "progress", "body"]
                }, metadata: lifter.metadata)
        }
        let clients = try await coachService.listClients(.init(), metadata: coach.metadata).clients.count
        print("coach \(coachName) has \(clients) clients")
        if !progressClient.isEmpty { print("progress-client \(progressClient)") }
    }
}
