import Foundation

/// Runs a program from a test, with a time limit, capturing its output.
public enum Subprocess {
    public struct Result: Sendable {
        public var status: Int32
        public var output: String
    }

    /// Runs `executable` to completion (killed after `timeout`), with `input` on standard input.
    public static func run(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String]? = nil,
        input: String = "",
        timeout: Duration = .seconds(60)
    ) async throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        let outputFile = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent(
            "spotter-test-\(UUID()).out")
        _ = FileManager.default.createFile(atPath: outputFile.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: outputFile) }
        let output = try FileHandle(forWritingTo: outputFile)
        process.standardOutput = output
        process.standardError = output
        let stdin = Pipe()
        process.standardInput = stdin
        let finished = AsyncStream<Void>.makeStream()
        process.terminationHandler = { _ in finished.continuation.finish() }
        try process.run()
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        let watchdog = Task {
            try await Task.sleep(for: timeout)
            process.end()
        }
        for await _ in finished.stream {}
        watchdog.cancel()
        try output.close()
        let text = (try? String(contentsOf: outputFile, encoding: .utf8)) ?? ""
        return Result(status: process.terminationStatus, output: text)
    }
}

extension TestDatabase {
    /// Runs the built `spotterctl` against this database (or `url`) as operator `test-operator`.
    public func spotterctl(
        _ arguments: [String], input: String = "", url: String? = nil, environment extra: [String: String] = [:]
    ) async throws -> Subprocess.Result {
        let binary = Self.repositoryRoot.appendingPathComponent(".build/debug/spotterctl").path
        var environment = ProcessInfo.processInfo.environment
        environment["SPOTTER_DATABASE_URL"] = url ?? ownerConfiguration.connectionString
        environment["SPOTTER_SCRYPT_LOG_N"] = "10"
        environment["SPOTTER_OPERATOR"] = "test-operator"
        environment.merge(extra) { _, new in new }
        return try await Subprocess.run(binary, arguments, environment: environment, input: input)
    }
}

extension Subprocess.Result {
    /// The output parsed as JSON.
    public func json() throws -> Any {
        try JSONSerialization.jsonObject(with: Data(output.utf8))
    }
}

extension Process {
    /// Ends a child process for good: SIGTERM now, SIGKILL if it still runs after `grace`, and
    /// `afterwards` once it has exited (at once when it is not running). SIGTERM alone is not
    /// enough: a child inherits the signals its parent ignores, and swift-service-lifecycle makes
    /// the test process ignore SIGTERM to handle it itself. Never blocks: a test's cleanup that
    /// waited on a thread of the cooperative pool could stall every other test. `afterwards` runs
    /// as soon as the child is gone, not after the whole grace: a test run that ends meanwhile
    /// would never run it (and leave the child's files behind).
    public func end(grace: Duration = .seconds(3), afterwards: (@Sendable () -> Void)? = nil) {
        guard isRunning else {
            afterwards?()
            return
        }
        kill(processIdentifier, SIGTERM)
        let seconds = Double(grace.components.seconds) + Double(grace.components.attoseconds) / 1e18
        Self.whenEnded(self, killingAt: .now() + seconds, afterwards)
    }

    private static func whenEnded(
        _ process: Process, killingAt deadline: DispatchTime, _ afterwards: (@Sendable () -> Void)?
    ) {
        guard process.isRunning else {
            afterwards?()
            return
        }
        if DispatchTime.now() >= deadline {
            kill(process.processIdentifier, SIGKILL)  // still running, so the pid is still its own
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.05) {
            whenEnded(process, killingAt: deadline, afterwards)
        }
    }
}
