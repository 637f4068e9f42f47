import Foundation
import GRPCCore
import SpotterProto
import SpotterTestSupport
import Testing

@Suite("Activity end to end over TLS")
struct ActivityEndToEndTests {
    /// A logged workout of one squat set, `hoursAgo` before now.
    private static func workout(_ name: String, hoursAgo: Double, minutes: Int32 = 45) -> Spotter_V1_LogWorkoutRequest {
        .with { $0.workout = squatWorkout(name, hoursAgo: hoursAgo, minutes: minutes) }
    }

    @Test(
        "a logged workout's award reaches a watching device through the feed without asking; the list, the summary and a challenge from spotterctl agree"
    )
    func awardsReachDevices() async throws {
        try await TestServer.with { server in
            try await server.withClient { client in
                let ada = try await signUpLifter(client, "ada")
                let sync = Spotter_V1_SyncService.Client(wrapping: client)
                let workouts = Spotter_V1_WorkoutService.Client(wrapping: client)
                let activity = Spotter_V1_ActivityService.Client(wrapping: client)
                let accounts = Spotter_V1_AccountService.Client(wrapping: client)
                let phone = try await sync.registerDevice(.with { $0.label = "phone" }, metadata: ada)
                let start = try await sync.pull(.with { $0.deviceID = phone.deviceID }, metadata: ada)

                let recorder = WatchRecorder()
                let watching = startWatching(client, ada, into: recorder)
                defer { watching.cancel() }
                #expect(try await recorder.arrival(of: .opened) != nil)

                let logged = try await workouts.logWorkout(Self.workout("Squats", hoursAgo: 2), metadata: ada)
                // The workout's own change, then the award the reconciler writes after it.
                #expect(try await recorder.arrival(of: .changed) != nil)
                var achievements: [Spotter_V1_SyncChange] = []
                let deadline = ContinuousClock.now + .seconds(5)
                // The award was written after the start of a pull that did not find it yet (the
                // reconciler waits a moment after the workout, so the first pull usually does not).
                var writtenAfter: ContinuousClock.Instant?
                while achievements.isEmpty && ContinuousClock.now < deadline {
                    let asked = ContinuousClock.now
                    let pulled = try await sync.pull(.with { $0.cursor = start.cursor }, metadata: ada)
                    achievements = pulled.changes.filter { $0.kind == .achievement }
                    if achievements.isEmpty {
                        writtenAfter = asked
                        try await Task.sleep(for: .milliseconds(20))
                    }
                }
                let first = try #require(achievements.first { $0.achievement.key == "milestone:1" })
                #expect(first.achievement.title == "1 Workout")
                #expect(first.achievement.workoutID == logged.workoutID)
                #expect(first.objectID == first.achievement.achievementID)
                // A notice came after the award was written: its own, or (when the device had not
                // taken the workout's yet, which a newer notice replaces) the one for both. (When the
                // first pull already found the award, which notice came after it cannot be told.)
                if let writtenAfter {
                    #expect(
                        try await recorder.arrival(of: .changed, after: writtenAfter, timeout: .seconds(5)) != nil,
                        "a notice after the award was written")
                }

                let list = try await activity.listAchievements(.init(), metadata: ada)
                #expect(list.earnedCount == Int32(achievements.count))
                let milestone = try #require(list.achievements.first { $0.key == "milestone:1" })
                #expect(milestone.earned && milestone.achievementID == first.objectID)
                #expect(list.achievements.first { $0.key == "milestone:5" }?.progressText == "1 of 5 workouts")
                #expect(list.achievements.first { $0.key == "trophy:birthday" }?.group == .trophy)

                // A challenge of yesterday and today (in UTC, the lifter's zone).
                let today = String(ISO8601DateFormatter().string(from: Date()).prefix(10))
                let yesterday = String(ISO8601DateFormatter().string(from: Date() - 86_400).prefix(10))
                let created = try await server.database.spotterctl([
                    "challenges", "create", "--name", "Two sessions", "--starts-on", yesterday, "--ends-on", today,
                    "--rule", "workouts", "--target", "2", "--reason", "launch", "--json",
                ])
                #expect(created.status == 0, "\(created.output)")
                let missing = try await server.database.spotterctl([
                    "challenges", "create", "--name", "No target", "--starts-on", today, "--ends-on", today,
                    "--rule", "workouts", "--reason", "launch",
                ])
                #expect(missing.status != 0 && missing.output.contains("--target: is required for workouts"))
                // Named by the options typed, not the API's fields.
                let backwards = try await server.database.spotterctl([
                    "challenges", "create", "--name", "Backwards", "--starts-on", today, "--ends-on", yesterday,
                    "--rule", "any_workout", "--reason", "launch",
                ])
                #expect(
                    backwards.status != 0
                        && backwards.output.contains("--ends-on: must be on or after --starts-on (\(today))"),
                    "\(backwards.output)")
                let second = try await workouts.logWorkout(Self.workout("Again", hoursAgo: 0.5), metadata: ada)
                let after = try await activity.listAchievements(.init(), metadata: ada)
                let challenge = try #require(after.achievements.first { $0.group == .challenge })
                #expect(
                    challenge.title == "Two sessions" && challenge.earned && challenge.workoutID == second.workoutID)
                let listed = try await server.database.spotterctl(["challenges", "list"])
                #expect(listed.output.contains("Two sessions"))

                let summary = try await activity.getActivitySummary(.init(), metadata: ada)
                #expect(summary.totals.workouts == 2 && summary.totals.activeMinutes == 90)
                // Per category is Pro's advanced statistics: left out, and the answer says so.
                #expect(summary.totals.categories.isEmpty && summary.breakdownsTierRequired == .pro)
                #expect(summary.streak.currentWeeks == 1)

                let refused = await rpcError {
                    _ = try await accounts.updateProfile(.with { $0.birthday = "31/12/1990" }, metadata: ada)
                }
                #expect(refused?.code == .invalidArgument)
                #expect(refused?.message.contains("birthday") == true)
                let profile = try await accounts.updateProfile(.with { $0.birthday = "1990-12-31" }, metadata: ada)
                #expect(profile.birthday == "1990-12-31")
            }
        }
    }

    @Test(
        "body measurements over TLS: recorded in pounds, listed with the change, read by a coach with the body scope only"
    )
    func bodyMeasurements() async throws {
        try await TestServer.with { server in
            try await server.withClient { client in
                let ada = try await signUpLifter(client, "ada")
                let cora = try await signUpLifter(client, "cora", kind: .coach)
                let body = Spotter_V1_BodyService.Client(wrapping: client)
                let accounts = Spotter_V1_AccountService.Client(wrapping: client)
                _ = try await accounts.updateProfile(.with { $0.unit = .lb }, metadata: ada)
                func record(_ day: String, _ pounds: Double) async throws -> Spotter_V1_BodyMeasurement {
                    try await body.recordMeasurement(
                        .with {
                            $0.measurement = .with {
                                $0.metric = .bodyWeight
                                $0.measuredOn = day
                                $0.value = pounds
                            }
                        }, metadata: ada)
                }
                // Body tracking is the Pro tier's.
                let free = await rpcError { _ = try await record("2026-01-05", 180) }
                #expect(free?.code == .permissionDenied)
                #expect(free?.message == "body weight and measurement tracking needs the Pro tier")
                // What an app shows its upgrade screen on: the reason and the tier, not the words.
                let tierInfo = try #require(try free?.unpackGoogleRPCStatus()).details.compactMap(\.errorInfo)
                #expect(tierInfo.map(\.reason) == ["TIER_REQUIRED"] && tierInfo.first?.metadata == ["tier": "TIER_PRO"])
                try await server.database.asOwner { connection in
                    try await connection.query(
                        "UPDATE tenants SET tier = 'pro' WHERE tenant_id = (SELECT tenant_id FROM accounts WHERE username = 'ada')"
                    )
                }
                let first = try await record("2026-01-05", 180)
                #expect(first.unit == .lb && first.value == 180)
                _ = try await record("2026-01-12", 176.5)
                let list = try await body.listMeasurements(.with { $0.metrics = [.bodyWeight] }, metadata: ada)
                #expect(list.series.first?.measurements.map(\.value) == [180, 176.5])
                #expect(list.series.first?.change == -3.5)
                let refused = await rpcError {
                    _ = try await body.recordMeasurement(
                        .with {
                            $0.measurement = .with {
                                $0.metric = .waist
                                $0.measuredOn = "2026-01-12"
                                $0.value = 500
                            }
                        }, metadata: ada)
                }
                #expect(refused?.code == .invalidArgument)
                #expect(
                    refused?.message.contains("measurement.value: must be from 2 to 118.1 in for waist, not 500")
                        == true)

                // A coach sees them only once the client grants the body scope.
                let coach = Spotter_V1_CoachService.Client(wrapping: client)
                let coaching = Spotter_V1_CoachingService.Client(wrapping: client)
                let invite = try await coach.createInvite(.init(), metadata: cora)
                _ = try await coaching.redeemInvite(
                    .with {
                        $0.code = invite.code
                        $0.scopes = ["history"]
                    }, metadata: ada)
                let profile = try await accounts.getProfile(.init(), metadata: ada)
                let denied = await rpcError {
                    _ = try await coach.getClientMeasurements(.with { $0.clientID = profile.tenantID }, metadata: cora)
                }
                #expect(denied?.code == .permissionDenied)
                let scopeInfo = try #require(try denied?.unpackGoogleRPCStatus()).details.compactMap(\.errorInfo)
                #expect(
                    scopeInfo.map(\.reason) == ["SCOPE_NOT_GRANTED"] && scopeInfo.first?.metadata == ["scope": "body"])
                let coachProfile = try await accounts.getProfile(.init(), metadata: cora)
                _ = try await coaching.setScopes(
                    .with {
                        $0.coachID = coachProfile.tenantID
                        $0.scopes = ["history", "body"]
                    }, metadata: ada)
                let read = try await coach.getClientMeasurements(
                    .with { $0.clientID = profile.tenantID }, metadata: cora)
                // In the coach's units: kilograms.
                #expect(read.series.first?.unit == .kg)
                #expect(read.series.first?.measurements.map(\.value) == [81.6, 80.1])
            }
        }
    }
}
