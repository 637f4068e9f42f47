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
            process.terminate()
        }
        for await _ in finished.stream {}
        watchdog.cancel()
        try output.close()
        let text = (try? String(contentsOf: outputFile, encoding: .utf8)) ?? ""
        return Result(status: process.terminationStatus, output: text)
    }
}
