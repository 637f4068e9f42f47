import Logging
import SpotterTestSupport
import Testing

@testable import SpotterServer

/// The pieces of the background services' passes (retention, sync purge, idle sessions).
@Suite("Background passes")
struct BackgroundPassTests {
    struct Failure: Error, CustomStringConvertible {
        var description: String { "connection refused" }
    }

    @Test("a failed piece is a warning naming it and the error; one stopped by shutdown says nothing")
    func attemptLogs() async throws {
        let lines = RecordingLogHandler.Lines()
        let logger = Logger(label: "test") { _ in RecordingLogHandler(lines: lines) }

        await attempt("retention purge", logger: logger) { throw Failure() }
        await attempt("sync purge", logger: logger) {}
        #expect(lines.all.map(\.message) == ["retention purge failed; retrying later"])
        #expect(lines.all.first?.metadata["error"] == "connection refused")

        // The server stopping cancels the pass; its statement then fails, and that is not news.
        let stopping = Task {
            while !Task.isCancelled { await Task.yield() }
            await attempt("closing idle guided sessions", logger: logger) { throw CancellationError() }
            await attempt("popularity recount", logger: logger) { throw Failure() }
        }
        stopping.cancel()
        await stopping.value
        #expect(lines.all.count == 1)
    }
}
