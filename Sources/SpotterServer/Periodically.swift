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
