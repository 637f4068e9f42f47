import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2
import SpotterProto
import SwiftProtobuf
import Synchronization

/// The sync scenario: a lifter with ten years of training (5,000 workouts, 100,000 sets) pushed
/// from one device in batches of 100 mutations, then timed full first pulls of everything from
/// an empty cursor, then rounds of one change pushed and the incremental pull that follows, while
/// a second device's Watch stream times how soon each push reaches it.
enum SyncBenchmark {
    static let workouts = 5000
    static let batch = 100

    static func run(
        client: GRPCClient<HTTP2ClientTransport.Posix>,
        prefix: String,
        fullPulls: Int,
        rounds: Int,
        pageSize: Int
    ) async throws {
        let lifter = try await Lifters.signIn("\(prefix)_sync_0", client)
        let sync = Spotter_V1_SyncService.Client(wrapping: client)
        let device = try await sync.registerDevice(.with { $0.label = "spotter-load" }, metadata: lifter.metadata)
        var mutationID: Int64 = 0
        let first = try await sync.pull(.with { $0.pageSize = 1 }, metadata: lifter.metadata)
        if first.changes.isEmpty || !first.more {
            let started = ContinuousClock.now
            mutationID = try await pushTenYears(sync, device: device.deviceID, lifter)
            let seconds = milliseconds(ContinuousClock.now - started) / 1000
            print(
                String(
                    format: "sync seed: %d workouts (%d sets) in %d pushes of %d mutations: %.1f s, %.0f mutations/s",
                    workouts, workouts * 20, workouts / batch, batch, seconds, Double(workouts) / seconds))
        }

        // Full first pulls.
        var durations: [Duration] = []
        var cursor = ""
        for run in stride(from: 1, through: fullPulls, by: 1) {
            let started = ContinuousClock.now
            var pages = 0
            var changes = 0
            var sets = 0
            var bytes = 0
            cursor = ""
            while true {
                let page = try await sync.pull(
                    .with {
                        $0.cursor = cursor
                        $0.pageSize = Int32(pageSize)
                    }, metadata: lifter.metadata)
                pages += 1
                changes += page.changes.count
                sets += page.changes.reduce(0) { $0 + $1.workout.exercises.reduce(0) { $0 + $1.sets.count } }
                bytes += (try page.serializedBytes() as [UInt8]).count
                cursor = page.cursor
                if !page.more { break }
            }
            let elapsed = ContinuousClock.now - started
            durations.append(elapsed)
            print(
                String(
                    format: "full pull %d: %d changes, %d sets, %d pages of %d, %.1f MB: %.0f ms", run, changes, sets,
                    pages, pageSize, Double(bytes) / 1e6, milliseconds(elapsed)))
        }
        report("full first pull", durations)

        // One change, then the incremental pull from the last cursor; a Watch stream on the same
        // connection times the "changed" event each push causes (PostgreSQL NOTIFY, then LISTEN).
        var pushes: [Duration] = []
        var pulls: [Duration] = []
        var notified: [Duration] = []
        let changes = Mutex<[ContinuousClock.Instant]>([])
        let opened = Mutex(false)
        let watching = Task {
            try await sync.watch(.init(), metadata: lifter.metadata) { response in
                for try await event in response.messages {
                    switch event.reason {
                    case .opened: opened.withLock { $0 = true }
                    case .changed: changes.withLock { $0.append(.now) }
                    default: break
                    }
                }
            }
        }
        defer { watching.cancel() }
        try await waitFor("the Watch stream to open") { opened.withLock { $0 } ? () : nil }
        mutationID = try await sync.pull(
            .with {
                $0.deviceID = device.deviceID; $0.pageSize = 1
            }, metadata: lifter.metadata
        )
        .lastMutationID
        for round in 0..<rounds {
            mutationID += 1
            let pushStarted = ContinuousClock.now
            _ = try await sync.push(
                .with {
                    $0.deviceID = device.deviceID
                    $0.mutations = [
                        .with {
                            $0.mutationID = mutationID
                            $0.kind = .workout
                            $0.objectID = UUID().uuidString.lowercased()
                            $0.workout = twentySets(at: Date().addingTimeInterval(-Double(round)))
                        }
                    ]
                }, metadata: lifter.metadata)
            let pullStarted = ContinuousClock.now
            let page = try await sync.pull(.with { $0.cursor = cursor }, metadata: lifter.metadata)
            pulls.append(ContinuousClock.now - pullStarted)
            pushes.append(pullStarted - pushStarted)
            guard page.changes.count == 1, !page.more else {
                throw LoadError("incremental pull brought \(page.changes.count) changes")
            }
            cursor = page.cursor
            let arrived = try await waitFor("the Watch event of push \(round + 1)") {
                changes.withLock { $0.first { $0 > pushStarted } }
            }
            notified.append(arrived - pushStarted)
        }
        report("push of one workout", pushes)
        report("incremental pull after one change", pulls)
        report("Watch event after a push (from the push's start)", notified)
    }

    /// Polls `found` every millisecond until it returns a value; throws after 10 seconds.
    private static func waitFor<T>(_ what: String, _ found: () -> T?) async throws -> T {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if let value = found() { return value }
            try await Task.sleep(for: .milliseconds(1))
        }
        throw LoadError("no sign of \(what) within 10 s")
    }

    private static func report(_ name: String, _ durations: [Duration]) {
        guard !durations.isEmpty else { return }
        let sorted = durations.sorted()
        func at(_ p: Double) -> Double {
            milliseconds(sorted[min(sorted.count - 1, max(0, Int((Double(sorted.count) * p).rounded(.up)) - 1))])
        }
        print(
            String(
                format: "%@ (%d): p50 %.2f ms  p90 %.2f ms  p99 %.2f ms  max %.2f ms", name, sorted.count, at(0.5),
                at(0.9), at(0.99), at(1)))
    }

    /// Four exercises of five working sets.
    /// Pushes ten years of training from `device` (new to the lifter): 5,000 workouts of 20 sets,
    /// most recent first, about every 17 hours, in pushes of 100 mutations numbered from 1. Answers
    /// the last mutation id.
    static func pushTenYears(
        _ sync: Spotter_V1_SyncService.Client<HTTP2ClientTransport.Posix>, device: String, _ lifter: Lifter
    )
        async throws -> Int64
    {
        var mutationID: Int64 = 0
        let now = Date()
        for start in stride(from: 0, to: workouts, by: batch) {
            let mutations = (start..<min(start + batch, workouts)).map { index in
                mutationID += 1
                return Spotter_V1_Mutation.with {
                    $0.mutationID = mutationID
                    $0.kind = .workout
                    $0.objectID = UUID().uuidString.lowercased()
                    $0.workout = twentySets(at: now.addingTimeInterval(-Double(index) * 63_000 - 3600))
                }
            }
            let pushed = try await sync.push(
                .with {
                    $0.deviceID = device
                    $0.mutations = mutations
                }, metadata: lifter.metadata)
            guard pushed.results.allSatisfy({ $0.status == .applied }) else {
                throw LoadError("seeding push: \(pushed.results.first { $0.status != .applied }!)")
            }
        }
        return mutationID
    }

    static func twentySets(at startedAt: Date) -> Spotter_V1_WorkoutInput {
        var input = Workouts.tenSets(at: startedAt)
        input.name = "Full body"
        input.exercises += [
            Workouts.fiveSets(of: "c0000000-0000-4000-8000-000000000003", from: 140, rpe: false),
            Workouts.fiveSets(of: "c0000000-0000-4000-8000-000000000005", from: 50, rpe: false),
        ]
        return input
    }
}
