import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2
import SpotterProto
import SpotterTestSupport
import Synchronization

/// The built `spotterd` binary running as a child process on a random loopback port, logging to a
/// temporary file.
final class SpotterdProcess: Sendable {
    let port: Int
    let dataDirectory: URL
    let log: URL
    private let process: Process
    let exited: AsyncStream<Void>

    var certificate: String { dataDirectory.appendingPathComponent("tls/dev-cert.pem").path }
    var logText: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }
    var processIdentifier: Int32 { process.processIdentifier }
    /// `nil` while it still runs.
    var terminationStatus: Int32? { process.isRunning ? nil : process.terminationStatus }

    /// Starts `spotterd` with the test environment plus `environment`; does not wait for it.
    init(environment extra: [String: String], port: Int = LoopbackPorts.next()) throws {
        self.port = port
        let name = UUID().uuidString.prefix(8)
        dataDirectory = URL(fileURLWithPath: "/tmp/spotterd-test-\(name)")
        // Named apart from the port: two children once shared a port, and so one log.
        log = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("spotterd-\(name).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "SPOTTER_DATABASE_URL")
        environment["SPOTTER_DATA_DIR"] = dataDirectory.path
        environment["SPOTTER_SCRYPT_LOG_N"] = "10"
        // Many run at once: each serves its metrics on a port of its own.
        environment["SPOTTER_METRICS_ADDRESS"] = "127.0.0.1:0"
        environment["SPOTTER_PORTAL_PORT"] = "0"
        environment.merge(extra) { _, new in new }
        process = Process()
        process.executableURL = TestDatabase.repositoryRoot.appendingPathComponent(".build/debug/spotterd")
        process.arguments = ["--port", "\(port)"]
        process.environment = environment
        let output = try FileHandle(forWritingTo: log)
        process.standardOutput = output
        process.standardError = output
        let (stream, continuation) = AsyncStream<Void>.makeStream()
        exited = stream
        process.terminationHandler = { _ in continuation.finish() }
        try process.run()
    }

    /// Waits up to a minute for the health check to answer SERVING.
    func waitUntilServing() async throws -> Bool {
        for _ in 0..<300 {
            try await Task.sleep(for: .milliseconds(200))
            guard FileManager.default.fileExists(atPath: certificate) else { continue }
            if (try? await healthStatus()) == .serving { return true }
        }
        return false
    }

    func healthStatus() async throws -> Grpc_Health_V1_HealthCheckResponse.ServingStatus {
        try await withClient { client in
            var options = CallOptions.defaults
            options.timeout = .seconds(2)
            options.waitForReady = false
            return try await Grpc_Health_V1_Health.Client(wrapping: client).check(
                .with { $0.service = "" }, options: options
            ).status
        }
    }

    func withClient<T: Sendable>(_ body: (GRPCClient<HTTP2ClientTransport.Posix>) async throws -> T) async throws
        -> T
    {
        try await TestServer.withClient(port: port, certificate: certificate, body)
    }

    /// SIGTERM, then waits up to 30 s for the exit (a crash must fail the test, not hang it).
    func stop() async {
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
        let exited = self.exited
        await withTaskGroup(of: Void.self) { group in
            group.addTask { for await _ in exited {} }
            group.addTask { try? await Task.sleep(for: .seconds(30)) }
            await group.next()
            group.cancelAll()
        }
    }

    /// Ends a process still running (SIGTERM, then SIGKILL after 10 s), and the embedded PostgreSQL
    /// it leaves behind if it had to be killed, and removes their files.
    func cleanUp() {
        let dataDirectory = dataDirectory
        let log = log
        process.end(grace: .seconds(10)) {
            let postmasterFile = dataDirectory.appendingPathComponent("postgres/postmaster.pid").path
            if let postmaster = (try? String(contentsOfFile: postmasterFile, encoding: .utf8))?
                .split(separator: "\n").first.flatMap({ pid_t($0) })
            {
                kill(postmaster, SIGQUIT)  // PostgreSQL's immediate shutdown
                // Its files go once it has exited: it writes to them until then. (A dispatch thread,
                // not one of the cooperative pool's; at most 5 s.)
                for _ in 0..<100 where kill(postmaster, 0) == 0 { usleep(50_000) }
            }
            try? FileManager.default.removeItem(at: dataDirectory)
            try? FileManager.default.removeItem(at: log)
        }
    }
}

/// Loopback ports for spotterd children. Two tests once drew the same random port: one spotterd
/// could not listen and the other's log filled with both. A port comes from below the kernel's
/// ephemeral range (32768 and up by default, which outgoing connections take), is handed out once
/// per test run, and is free when handed out.
enum LoopbackPorts {
    private static let handedOut = Mutex<Set<Int>>([])

    static func next() -> Int {
        while true {
            let port = Int.random(in: 20_000...32_000)
            guard handedOut.withLock({ $0.insert(port).inserted }), isFree(port) else { continue }
            return port
        }
    }

    /// Whether `port` can be listened on at 127.0.0.1 now.
    private static func isFree(_ port: Int) -> Bool {
        guard let socket = try? ListeningSocket(port: port) else { return false }
        socket.close()
        return true
    }
}
