import ArgumentParser
import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2
import SpotterProto
import Synchronization

/// Drives a running spotterd over TLS with a fixed number of calls at a fixed concurrency and
/// prints throughput, latency percentiles and errors. See Benchmarks/README.md.
@main
struct LoadGenerator: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "spotter-load",
        abstract: "Load generator for spotterd: log-workout, history and progress calls over TLS."
    )

    enum Scenario: String, ExpressibleByArgument, CaseIterable {
        /// LogWorkout with 2 exercises × 5 sets.
        case log
        /// ListWorkouts, a 20-entry page, for lifters with 2,000 logged sets each.
        case history
        /// GetProgress for squat over the last year, for lifters with a year of training.
        case progress
        /// CoachService.ListClientWorkouts, a 20-entry page of a client with 2,000 sets, read by a
        /// coach with the history and details scopes (row-level security on the coach's grants).
        case coachHistory = "coach-history"
        /// ListAchievements for lifters with ten years of training (5,000 workouts, 100,000 sets).
        case achievements
        /// LogWorkout (like `log`) for lifters with ten years of training: each logged workout
        /// makes spotterd's reconciler recompute the lifter's achievements over all of it.
        case logTenYears = "log-ten-years"
        /// Sync (not the call driver): a lifter with 5,000 workouts and 100,000 sets pushed in
        /// batches; `--calls` full first pulls; then `--rounds` rounds of one pushed change and
        /// the incremental pull after it.
        case sync
        /// Seeds the coach portal benchmark (not the call driver; Benchmarks/portal.sh measures the
        /// pages): the coach `<prefix>_portal_coach` and `--tenants` clients linked with every
        /// scope, each with three workouts in the last two weeks, the first with three a week for a
        /// year. Prints `progress-client <id>`. Run it with `--tenants 0` first (the coach alone),
        /// give the coach the Coach Pro tier, then with the clients.
        case portal
        /// Import and export (not the call driver): a ten-year Strong CSV imported twice into a new
        /// account, then the account exported as CSV and JSON (TransferBenchmark).
        case transfer
        /// LogRun of a 30-minute run: 5,100 footsteps with positions and compass headings, two
        /// pauses and a zig-zag minute, analysed and stored as a workout.
        case run
        /// RecordSet in each lifter's open guided session (seeded: one exercise of 5 sets), set
        /// after set, round and round; calls of one lifter wait on the session's row lock.
        case session
    }

    @Option(help: "Server host.") var host = "localhost"
    @Option(help: "Server port.") var port = 50051
    @Option(help: "PEM certificate to trust (the server's development certificate).") var certificate: String
    @Option(
        help:
            "log, history, progress, coach-history, achievements, log-ten-years, sync, portal, transfer, run or session."
    )
    var scenario: Scenario
    @Option(help: "Calls to measure.") var calls = 2000
    @Option(help: "Calls in flight at once.") var concurrency = 8
    @Option(help: "Lifters (tenants) the calls are spread over.") var tenants = 8
    @Option(help: "HTTP/2 connections the calls are spread over.") var connections = 4
    @Option(help: "Unmeasured calls before measuring.") var warmup = 200
    @Option(help: "Prefix of the lifters' usernames; reruns with the same prefix reuse their data.")
    var prefix = "bench"
    @Option(help: "sync: rounds of one change and an incremental pull.") var rounds = 200
    @Option(help: "sync: changes per pull page.") var pageSize = 200
    @Option(
        help: """
            Repeat the measured calls, a report each time, until this many seconds have passed \
            (signing in again for fresh tokens every 10 minutes); 0: once.
            """)
    var seconds = 0
    @Option(help: "Write each measured call's start and latency in milliseconds, one call a line, to this file.")
    var latencies: String?
    @Option(
        help: """
            Once signed in, seeded and warmed up, create this file and wait until it is gone before the \
            measured calls (the script reading the processes' CPU counters removes it: setup stays out).
            """)
    var readyFile: String?
    @Flag(
        help: """
            Drive spotter-floor (Benchmarks/Floor), which checks no token: no sign-in, and made-up lifters \
            (log and history only).
            """)
    var floor = false

    func validate() throws {
        if readyFile != nil, [.sync, .transfer, .portal].contains(scenario) {
            throw ValidationError("--ready-file: the \(scenario.rawValue) scenario makes no measured calls")
        }
    }

    func run() async throws {
        let clients = try (0..<connections).map { _ in
            GRPCClient(
                transport: try HTTP2ClientTransport.Posix(
                    target: .dns(host: host, port: port),
                    transportSecurity: .tls { $0.trustRoots = .certificates([.file(path: certificate, format: .pem)]) }
                )
            )
        }
        try await withThrowingDiscardingTaskGroup { group in
            for client in clients { group.addTask { try await client.runConnections() } }
            defer { clients.forEach { $0.beginGracefulShutdown() } }
            if scenario == .sync {
                try await SyncBenchmark.run(
                    client: clients[0], prefix: prefix, fullPulls: calls, rounds: rounds, pageSize: pageSize)
                return
            }
            if scenario == .transfer {
                try await TransferBenchmark.run(client: clients[0], prefix: prefix)
                return
            }
            if scenario == .portal {
                try await PortalSeed.run(clients: tenants, prefix: prefix, client: clients[0])
                return
            }
            if floor, scenario != .log, scenario != .history {
                throw ValidationError("--floor: spotter-floor answers only the log and history scenarios")
            }
            var lifters =
                floor
                ? Array(repeating: Lifter(metadata: ["authorization": "Bearer floor"]), count: tenants)
                : try await Lifters.prepare(scenario: scenario, count: tenants, prefix: prefix, client: clients[0])
            var call = Call(scenario: scenario, lifters: lifters)
            if warmup > 0 {
                _ = try await Driver.run(calls: warmup, concurrency: concurrency, clients: clients, call: call)
            }
            if let readyFile { try await Self.signalReady(readyFile) }
            let clock = ContinuousClock()
            let end = clock.now + .seconds(seconds)
            var signedIn = clock.now
            repeat {
                // Access tokens last 15 minutes.
                if !floor, clock.now - signedIn > .seconds(600) {
                    lifters = try await Lifters.prepare(
                        scenario: scenario, count: tenants, prefix: prefix, client: clients[0], registered: true)
                    call = Call(scenario: scenario, lifters: lifters)
                    signedIn = clock.now
                }
                let result = try await Driver.run(calls: calls, concurrency: concurrency, clients: clients, call: call)
                print(result.report(scenario: scenario.rawValue, concurrency: concurrency))
                if let latencies { try result.timeline.write(toFile: latencies, atomically: true, encoding: .utf8) }
            } while clock.now < end
        }
    }
}

extension LoadGenerator {
    /// Creates `path` and waits until it is gone (at most two minutes).
    static func signalReady(_ path: String) async throws {
        guard FileManager.default.createFile(atPath: path, contents: nil) else {
            throw LoadError("--ready-file: cannot create \(path)")
        }
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(120)
        while FileManager.default.fileExists(atPath: path) {
            guard clock.now < deadline else { throw LoadError("--ready-file: \(path) still there after 120 s") }
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}

/// One measured call of a scenario.
struct Call: Sendable {
    let scenario: LoadGenerator.Scenario
    let lifters: [Lifter]

    func callAsFunction(_ index: Int, _ client: GRPCClient<HTTP2ClientTransport.Posix>) async throws {
        let lifter = lifters[index % lifters.count]
        switch scenario {
        case .log, .logTenYears:
            let workouts = Spotter_V1_WorkoutService.Client(wrapping: client)
            _ = try await workouts.logWorkout(
                .with {
                    $0.workoutID = UUID().uuidString.lowercased()
                    $0.workout = Workouts.tenSets(at: Date())
                }, metadata: lifter.metadata)
        case .history:
            let workouts = Spotter_V1_WorkoutService.Client(wrapping: client)
            let page = try await workouts.listWorkouts(.with { $0.page.pageSize = 20 }, metadata: lifter.metadata)
            guard page.workouts.count == 20 else { throw LoadError("history page has \(page.workouts.count) entries") }
        case .coachHistory:
            let coach = Spotter_V1_CoachService.Client(wrapping: client)
            let page = try await coach.listClientWorkouts(
                .with {
                    $0.clientID = lifter.clientID
                    $0.page.pageSize = 20
                }, metadata: lifter.metadata)
            guard page.workouts.count == 20 else { throw LoadError("client page has \(page.workouts.count) entries") }
        case .achievements:
            let activity = Spotter_V1_ActivityService.Client(wrapping: client)
            let list = try await activity.listAchievements(.init(), metadata: lifter.metadata)
            guard list.earnedCount >= 8 else { throw LoadError("only \(list.earnedCount) achievements earned") }
        case .sync, .portal, .transfer:
            throw LoadError("the \(scenario.rawValue) scenario runs on its own")
        case .run:
            let runs = Spotter_V1_RunService.Client(wrapping: client)
            let run = try await runs.logRun(
                .with {
                    $0.runID = UUID().uuidString.lowercased()
                    $0.startedAt = .at(Date().addingTimeInterval(-2400))
                    $0.samples = Runs.thirtyMinutes
                }, metadata: lifter.metadata)
            guard run.pauses.count == 2, run.weavingMinutes >= 1 else {
                throw LoadError("run analysed as \(run.pauses.count) pauses, \(run.weavingMinutes) weaving minutes")
            }
        case .session:
            let sessions = Spotter_V1_SessionService.Client(wrapping: client)
            _ = try await sessions.recordSet(
                .with {
                    $0.sessionID = lifter.sessionID
                    $0.exerciseIndex = 0
                    $0.setIndex = Int32(index / lifters.count % 5)
                    $0.actual = .with {
                        $0.reps = 5
                        $0.weight = .with {
                            $0.value = 100
                            $0.unit = .kg
                        }
                    }
                }, metadata: lifter.metadata)
        case .progress:
            let progress = Spotter_V1_ProgressService.Client(wrapping: client)
            let now = Date()
            let series = try await progress.getProgress(
                .with {
                    $0.exerciseID = Workouts.squat
                    $0.from = .at(now.addingTimeInterval(-365 * 86_400))
                    $0.to = .at(now)
                }, metadata: lifter.metadata)
            guard series.points.count >= 100 else { throw LoadError("progress has \(series.points.count) points") }
        }
    }
}

struct LoadError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Runs calls with a fixed number in flight and collects their latencies.
enum Driver {
    struct Result {
        var latencies: [Duration]
        /// When each call of `latencies` began, from the run's start.
        var starts: [Duration]
        var errors: [String: Int]
        var elapsed: Duration
        /// The wall-clock time the measured calls began (to match the starts with server logs).
        var began = Date()

        /// A comment line with `began` (Unix seconds), then `start latency` in milliseconds, one
        /// call a line, in the order the calls began.
        var timeline: String {
            String(format: "# began %.3f (Unix time); start and latency in ms\n", began.timeIntervalSince1970)
                + zip(starts, latencies).sorted { $0.0 < $1.0 }
                .map { String(format: "%.3f %.3f\n", milliseconds($0.0), milliseconds($0.1)) }.joined()
        }

        func report(scenario: String, concurrency: Int) -> String {
            let sorted = latencies.sorted()
            func at(_ p: Double) -> Double {
                let index = min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)
                return milliseconds(sorted[max(0, index)])
            }
            func percentile(_ p: Double) -> String {
                sorted.isEmpty ? "-" : String(format: "%.2f ms", at(p))
            }
            let seconds = milliseconds(elapsed) / 1000
            // The latency's shape under load is the p99 against the mean (issue 16).
            let mean = sorted.isEmpty ? 0 : sorted.map(milliseconds).reduce(0, +) / Double(sorted.count)
            let p99 = sorted.isEmpty ? 0 : at(0.99)
            var lines = [
                "scenario=\(scenario) concurrency=\(concurrency) calls=\(latencies.count + errors.values.reduce(0, +))",
                String(format: "  throughput %.0f calls/s over %.2f s", Double(latencies.count) / seconds, seconds),
                "  latency p50 \(percentile(0.50))  p90 \(percentile(0.90))  p99 \(percentile(0.99))  max \(percentile(1.0))",
                String(format: "  latency mean %.2f ms  p99 / mean %.2f", mean, mean > 0 ? p99 / mean : 0),
                "  errors \(errors.values.reduce(0, +))",
            ]
            for (message, count) in errors.sorted(by: { $0.value > $1.value }).prefix(5) {
                lines.append("    \(count) × \(message)")
            }
            return lines.joined(separator: "\n")
        }
    }

    static func run(
        calls: Int,
        concurrency: Int,
        clients: [GRPCClient<HTTP2ClientTransport.Posix>],
        call: Call
    ) async throws -> Result {
        let next = Counter()
        let began = Date()
        let started = ContinuousClock.now
        let results = try await withThrowingTaskGroup(of: ([Duration], [Duration], [String: Int]).self) { group in
            for worker in 0..<concurrency {
                group.addTask {
                    var latencies: [Duration] = []
                    var starts: [Duration] = []
                    var errors: [String: Int] = [:]
                    let client = clients[worker % clients.count]
                    while true {
                        let index = next.take()
                        guard index < calls else { break }
                        let begin = ContinuousClock.now
                        do {
                            try await call(index, client)
                            latencies.append(ContinuousClock.now - begin)
                            starts.append(begin - started)
                        } catch {
                            errors["\(error)".prefix(160).description, default: 0] += 1
                        }
                    }
                    return (latencies, starts, errors)
                }
            }
            var all = Result(latencies: [], starts: [], errors: [:], elapsed: .zero)
            for try await (latencies, starts, errors) in group {
                all.latencies += latencies
                all.starts += starts
                all.errors.merge(errors, uniquingKeysWith: +)
            }
            return all
        }
        var result = results
        result.elapsed = ContinuousClock.now - started
        result.began = began
        return result
    }
}

/// Hands out call numbers to the workers.
final class Counter: Sendable {
    private let value = Atomic<Int>(0)

    func take() -> Int { value.add(1, ordering: .relaxed).oldValue }
}

func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}

extension Spotter_V1_Timestamp {
    static func at(_ date: Date) -> Self {
        .with { $0.unixMicros = Int64(date.timeIntervalSince1970 * 1_000_000) }
    }
}
