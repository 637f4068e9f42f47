import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2
import GRPCProtobuf
import Postgres
import SpotterCore
import SpotterProto
import SpotterTestSupport
import Synchronization
import Testing

/// What one Watch stream received, and when.
final class WatchRecorder: Sendable {
    private let events = Mutex<[(Spotter_V1_WatchEvent.Reason, ContinuousClock.Instant)]>([])

    func record(_ reason: Spotter_V1_WatchEvent.Reason) {
        events.withLock { $0.append((reason, .now)) }
    }

    var count: Int { events.withLock { $0.count } }

    /// When the last `reason` arrived, waiting up to `timeout` for one at or after `instant`; `nil`
    /// if none did.
    func arrival(of reason: Spotter_V1_WatchEvent.Reason, after instant: ContinuousClock.Instant, timeout: Duration)
        async throws -> ContinuousClock.Instant?
    {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let last = events.withLock { $0.last { $0.0 == reason }?.1 }
            if let last, last >= instant { return last }
            try await Task.sleep(for: .milliseconds(5))
        }
        return nil
    }

    /// When the first `reason` after the first `skipping` events arrived; `nil` if none within
    /// `timeout` — 15 s by default: `opened` waits for the server's notification listener, which on
    /// a loaded 2-core CI machine starting a dozen servers at once was seen to go live more than
    /// 5 s after the stream opened.
    func arrival(of reason: Spotter_V1_WatchEvent.Reason, skipping: Int = 0, timeout: Duration = .seconds(15))
        async throws -> ContinuousClock.Instant?
    {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let found = events.withLock { $0.dropFirst(skipping).first { $0.0 == reason }?.1 }
            if let found { return found }
            try await Task.sleep(for: .milliseconds(5))
        }
        return nil
    }
}

/// Opens a Watch stream on `client` in a task that records every event until cancelled.
func startWatching(
    _ client: GRPCClient<some ClientTransport>,
    _ metadata: Metadata,
    into recorder: WatchRecorder
) -> Task<Void, any Error> {
    let sync = Spotter_V1_SyncService.Client(wrapping: client)
    return Task {
        try await sync.watch(.init(), metadata: metadata) { response in
            for try await event in response.messages { recorder.record(event.reason) }
        }
    }
}

/// A push request of `device` carrying `mutations`.
func batch(_ device: String, _ mutations: Spotter_V1_Mutation...) -> Spotter_V1_PushRequest {
    .with {
        $0.deviceID = device
        $0.mutations = mutations
    }
}

/// A workout of one working set of squats, 5 × 100 kg, started `hoursAgo` before now.
func squatWorkout(_ name: String, hoursAgo: Double = 2, minutes: Int32 = 60) -> Spotter_V1_WorkoutInput {
    .with {
        $0.name = name
        $0.startedAt = .with { $0.unixMicros = Int64((Date().timeIntervalSince1970 - hoursAgo * 3600) * 1_000_000) }
        $0.durationSeconds = minutes * 60
        $0.exercises = [
            .with {
                $0.exerciseID = "c0000000-0000-4000-8000-000000000001"
                $0.sets = [
                    .with {
                        $0.reps = 5
                        $0.weight = .with {
                            $0.value = 100
                            $0.unit = .kg
                        }
                        $0.type = .working
                    }
                ]
            }
        ]
    }
}

/// A one-workout mutation creating workout `id`.
func createWorkout(_ mutationID: Int64, id: String, name: String) -> Spotter_V1_Mutation {
    .with {
        $0.mutationID = mutationID
        $0.kind = .workout
        $0.objectID = id
        $0.workout = squatWorkout(name)
    }
}

@Suite("Sync end to end over TLS")
struct SyncEndToEndTests {
    @Test("a push from device A reaches device B's Watch stream within a second; B's pull brings the workout")
    func watchAcrossDevices() async throws {
        try await TestServer.with { server in
            try await server.withClient { client in
                let ada = try await signUpLifter(client, "ada")
                let sync = Spotter_V1_SyncService.Client(wrapping: client)
                let phone = try await sync.registerDevice(.with { $0.label = "phone" }, metadata: ada)
                let tablet = try await sync.registerDevice(.with { $0.label = "tablet" }, metadata: ada)
                #expect(phone.deviceID != tablet.deviceID)

                let recorder = WatchRecorder()
                let watching = startWatching(client, ada, into: recorder)
                defer { watching.cancel() }
                #expect(try await recorder.arrival(of: .opened) != nil)
                let tabletStart = try await sync.pull(.with { $0.deviceID = tablet.deviceID }, metadata: ada)

                let workoutID = UUID().uuidString.lowercased()
                let first = batch(phone.deviceID, createWorkout(1, id: workoutID, name: "Basement squats"))
                let results = try await sync.push(first, metadata: ada)
                #expect(results.results.map(\.status) == [.applied])
                // How soon it arrives is measured by the sync benchmark, not here.
                #expect(try await recorder.arrival(of: .changed) != nil, "the change never reached the stream")

                // The workout, and perhaps the achievements it earned (spotterd's reconciler writes
                // them after the push commits).
                let pulled = try await sync.pull(.with { $0.cursor = tabletStart.cursor }, metadata: ada)
                let workouts = pulled.changes.filter { $0.kind != .achievement }
                #expect(workouts.map(\.objectID) == [workoutID])
                #expect(workouts.first?.workout.name == "Basement squats")
                #expect(!pulled.more)

                // The phone learns its mutation was applied from a pull too.
                let phonePull = try await sync.pull(.with { $0.deviceID = phone.deviceID }, metadata: ada)
                #expect(phonePull.lastMutationID == 1)

                // Sent again as it was, it answers the same; the same number with other content
                // for the same workout from the same version (a counter gone back) is refused.
                let replay = try await sync.push(first, metadata: ada)
                #expect(replay.results == results.results)
                var other = first
                other.mutations[0].workout.name = "Garage squats"
                let reused = await rpcError { _ = try await sync.push(other, metadata: ada) }
                #expect(reused?.code == .failedPrecondition)
                #expect(
                    reused?.message.hasPrefix("mutations[0].mutation_id: this device's mutation 1 was another change")
                        == true)
            }
        }
    }

    @Test("Watch streams are limited per account and leave the server when the client goes away")
    func streamLimitAndCleanup() async throws {
        try await TestServer.with(environment: ["SPOTTER_SYNC_WATCH_LIMIT": "2"]) { server in
            try await server.withClient { client in
                let ada = try await signUpLifter(client, "ada")
                let bob = try await signUpLifter(client, "bob")
                let profile = try await Spotter_V1_AccountService.Client(wrapping: client).getProfile(
                    .init(), metadata: ada)
                let adaID = try #require(TenantID(profile.tenantID))
                let first = WatchRecorder()
                let second = WatchRecorder()
                let firstTask = startWatching(client, ada, into: first)
                let secondTask = startWatching(client, ada, into: second)
                defer {
                    firstTask.cancel()
                    secondTask.cancel()
                }
                #expect(try await first.arrival(of: .opened) != nil)
                #expect(try await second.arrival(of: .opened) != nil)
                #expect(server.watchHub.streamCount(adaID) == 2)

                let sync = Spotter_V1_SyncService.Client(wrapping: client)
                let refused = await rpcCode {
                    try await sync.watch(.init(), metadata: ada) { response in
                        for try await _ in response.messages {}
                    }
                }
                #expect(refused == .resourceExhausted)
                // Another account is not affected by Ada's streams.
                let bobRecorder = WatchRecorder()
                let bobTask = startWatching(client, bob, into: bobRecorder)
                defer { bobTask.cancel() }
                #expect(try await bobRecorder.arrival(of: .opened) != nil)

                // The client goes away: the server drops the stream and Ada may open another.
                firstTask.cancel()
                var count = 2
                for _ in 0..<200 where count != 1 {
                    try await Task.sleep(for: .milliseconds(10))
                    count = server.watchHub.streamCount(adaID)
                }
                #expect(count == 1)
                let third = WatchRecorder()
                let thirdTask = startWatching(client, ada, into: third)
                defer { thirdTask.cancel() }
                #expect(try await third.arrival(of: .opened) != nil)
            }
        }
    }

    @Test("the stream survives a lost database connection: RECONNECTED, then changes arrive again")
    func reconnectAfterLostListener() async throws {
        try await TestServer.with { server in
            try await server.withClient { client in
                let ada = try await signUpLifter(client, "ada")
                let sync = Spotter_V1_SyncService.Client(wrapping: client)
                let phone = try await sync.registerDevice(.init(), metadata: ada)
                let recorder = WatchRecorder()
                let watching = startWatching(client, ada, into: recorder)
                defer { watching.cancel() }
                #expect(try await recorder.arrival(of: .opened) != nil)

                let owner = try await server.database.ownerConnection()
                let terminated = try await owner.query(
                    """
                    SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity
                    WHERE application_name = 'spotterd-sync-listener' AND datname = current_database()
                    """)
                #expect(try terminated.single?.decode("n") as Int? == 1)
                #expect(try await recorder.arrival(of: .reconnected, timeout: .seconds(10)) != nil)

                let seen = recorder.count
                _ = try await sync.push(
                    batch(phone.deviceID, createWorkout(1, id: UUID().uuidString, name: "After the outage")),
                    metadata: ada)
                #expect(try await recorder.arrival(of: .changed, skipping: seen) != nil)
            }
        }
    }

    @Test("a Watch stream ends UNAUTHENTICATED once its session is signed out; another session's stream stays")
    func sessionEndsStream() async throws {
        try await TestServer.with(environment: ["SPOTTER_SYNC_WATCH_CHECK_SECONDS": "1"]) { server in
            try await server.withClient { client in
                let phone = try await signUpLifter(client, "ada")
                let auth = Spotter_V1_AuthService.Client(wrapping: client)
                let tablet: Metadata = try await [
                    "authorization":
                        "Bearer \(auth.signIn(.with { $0.login = "ada"; $0.password = "long enough ada" }).accessToken)"
                ]
                let phoneEvents = WatchRecorder()
                let tabletEvents = WatchRecorder()
                let phoneStream = startWatching(client, phone, into: phoneEvents)
                let tabletStream = startWatching(client, tablet, into: tabletEvents)
                defer { tabletStream.cancel() }
                #expect(try await phoneEvents.arrival(of: .opened) != nil)
                #expect(try await tabletEvents.arrival(of: .opened) != nil)

                _ = try await auth.signOut(.init(), metadata: phone)
                let stop = Task {
                    try await Task.sleep(for: .seconds(10))
                    phoneStream.cancel()  // Not ended by the server: fail rather than wait forever.
                }
                let ended = await rpcCode { try await phoneStream.value }
                stop.cancel()
                #expect(ended == .unauthenticated)

                // The tablet's session is untouched: its stream still hears changes.
                let sync = Spotter_V1_SyncService.Client(wrapping: client)
                let device = try await sync.registerDevice(.init(), metadata: tablet)
                let seen = tabletEvents.count
                _ = try await sync.push(
                    batch(device.deviceID, createWorkout(1, id: UUID().uuidString, name: "Still watching")),
                    metadata: tablet)
                #expect(try await tabletEvents.arrival(of: .changed, skipping: seen) != nil)
            }
        }
    }

    @Test("RemoveDevice over TLS: the device leaves the list, and its next push is NOT_FOUND")
    func removeDevice() async throws {
        try await TestServer.with { server in
            try await server.withClient { client in
                let ada = try await signUpLifter(client, "ada")
                let sync = Spotter_V1_SyncService.Client(wrapping: client)
                let phone = try await sync.registerDevice(.with { $0.label = "old phone" }, metadata: ada)
                _ = try await sync.removeDevice(.with { $0.deviceID = phone.deviceID }, metadata: ada)
                #expect(try await sync.listDevices(.init(), metadata: ada).devices.isEmpty)
                let refused = await rpcError {
                    _ = try await sync.push(
                        batch(phone.deviceID, createWorkout(1, id: UUID().uuidString, name: "Lost")), metadata: ada)
                }
                #expect(refused?.code == .notFound)
                let again = await rpcError {
                    _ = try await sync.removeDevice(.with { $0.deviceID = phone.deviceID }, metadata: ada)
                }
                #expect(again?.code == .notFound && again?.message == "device_id: no such device")
            }
        }
    }

    @Test("a pull from a cursor older than the purged deletions is FAILED_PRECONDITION with SYNC_RESET_REQUIRED")
    func resetRequired() async throws {
        try await TestServer.with { server in
            try await server.withClient { client in
                let ada = try await signUpLifter(client, "ada")
                let sync = Spotter_V1_SyncService.Client(wrapping: client)
                let phone = try await sync.registerDevice(.init(), metadata: ada)
                _ = try await sync.push(
                    batch(phone.deviceID, createWorkout(1, id: UUID().uuidString, name: "Kept")), metadata: ada)
                let start = try await sync.pull(.init(), metadata: ada)
                #expect(!start.cursor.isEmpty)
                let id = UUID().uuidString
                var deletion = Spotter_V1_Mutation.with {
                    $0.mutationID = 3
                    $0.kind = .workout
                    $0.objectID = id
                    $0.baseVersion = 1
                }
                deletion.delete = true
                let results = try await sync.push(
                    batch(phone.deviceID, createWorkout(2, id: id, name: "Short-lived"), deletion), metadata: ada)
                #expect(results.results.map(\.status) == [.applied, .applied])
                // The retention period passes.
                let owner = try await server.database.ownerConnection()
                for table in ["sync_changes SET changed_at = changed_at", "sync_mutations SET applied_at = applied_at"]
                {
                    try await owner.query("UPDATE \(table) - interval '31 days'")
                }
                try await owner.query("SELECT spotter_sync_purge(30)")

                do {
                    _ = try await sync.pull(.with { $0.cursor = start.cursor }, metadata: ada)
                    Issue.record("a pull from a purged cursor succeeded")
                } catch let error as RPCError {
                    #expect(error.code == .failedPrecondition)
                    let status = try #require(try error.unpackGoogleRPCStatus())
                    #expect(status.details.compactMap(\.errorInfo).map(\.reason) == ["SYNC_RESET_REQUIRED"])
                }
                // Starting over works, and the deleted workout is not sent.
                let fresh = try await sync.pull(.init(), metadata: ada)
                #expect(fresh.changes.filter { $0.kind == .workout }.map(\.workout.name) == ["Kept"])
            }
        }
    }

    @Test("a push of 100 over gRPC commits in two transactions of 50")
    func longPushOverRPC() async throws {
        try await TestServer.with { server in
            try await server.withClient { client in
                let ada = try await signUpLifter(client, "ada")
                let sync = Spotter_V1_SyncService.Client(wrapping: client)
                let phone = try await sync.registerDevice(.init(), metadata: ada)
                let request = Spotter_V1_PushRequest.with {
                    $0.deviceID = phone.deviceID
                    $0.mutations = (1...Int64(100)).map {
                        createWorkout($0, id: UUID().uuidString.lowercased(), name: "Day \($0)")
                    }
                }
                let results = try await sync.push(request, metadata: ada)
                #expect(results.results.map(\.status) == Array(repeating: .applied, count: 100))
                // A mutation's stored result is written in its transaction, outside the mutation's
                // savepoint: its row's xmin is that transaction's id.
                let owner = try await server.database.ownerConnection()
                let transactions = try await owner.query(
                    """
                    SELECT count(*)::int AS results, count(DISTINCT xmin::text)::int AS transactions
                    FROM sync_mutations WHERE device_id = $1
                    """,
                    [UUID(uuidString: phone.deviceID)!])
                await owner.close()
                #expect(try transactions.single?.decode("results") == 100)
                #expect(try transactions.single?.decode("transactions") == 2)
            }
        }
    }

    @Test("another account's device id or object is refused and changes nothing")
    func crossTenantPush() async throws {
        try await TestServer.with { server in
            try await server.withClient { client in
                let ada = try await signUpLifter(client, "ada")
                let bob = try await signUpLifter(client, "bob")
                let sync = Spotter_V1_SyncService.Client(wrapping: client)
                let adaPhone = try await sync.registerDevice(.init(), metadata: ada)
                let bobPhone = try await sync.registerDevice(.init(), metadata: bob)
                let workoutID = UUID().uuidString.lowercased()
                _ = try await sync.push(
                    batch(adaPhone.deviceID, createWorkout(1, id: workoutID, name: "Ada's")), metadata: ada)

                #expect(
                    await rpcCode {
                        _ = try await sync.push(
                            batch(adaPhone.deviceID, createWorkout(2, id: UUID().uuidString, name: "Bob's")),
                            metadata: bob)
                    } == .notFound)
                var deletion = Spotter_V1_Mutation.with {
                    $0.mutationID = 1
                    $0.kind = .workout
                    $0.objectID = workoutID
                    $0.baseVersion = 1
                }
                deletion.delete = true
                let refused = try await sync.push(batch(bobPhone.deviceID, deletion), metadata: bob)
                #expect(refused.results.map(\.status) == [.rejected])

                let adaState = try await sync.pull(.init(), metadata: ada)
                #expect(adaState.changes.filter { $0.kind == .workout }.map(\.workout.name) == ["Ada's"])
                let adaDevice = try await sync.pull(.with { $0.deviceID = adaPhone.deviceID }, metadata: ada)
                #expect(adaDevice.lastMutationID == 1)
                let bobState = try await sync.pull(.init(), metadata: bob)
                #expect(!bobState.changes.contains { $0.kind == .workout })
            }
        }
    }
}
