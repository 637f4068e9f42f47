import Logging
import ServiceLifecycle

/// Runs `pass` now and then once every `interval` until graceful shutdown: the loop of the
/// background services that sweep the database (retention, idle guided sessions). A pass handles
/// its own failures; the next one tries again.
func periodically(every interval: Duration, _ pass: @escaping @Sendable () async -> Void) async {
    await cancelWhenGracefulShutdown {
        while !Task.isCancelled {
            await pass()
            try? await Task.sleep(for: interval)
        }
    }
}

/// Runs one piece of a background pass. A failure is a warning naming `what` ("retention purge")
/// and is left to the next pass; a pass stopped because the server is stopping is not a failure
/// and says nothing.
func attempt(_ what: String, logger: Logger, _ body: () async throws -> Void) async {
    do {
        try await body()
    } catch {
        guard !Task.isCancelled else { return }
        logger.warning("\(what) failed; retrying later", metadata: ["error": "\(error)"])
    }
}
