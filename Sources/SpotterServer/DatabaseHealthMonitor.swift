import Logging
import Postgres
import ServiceLifecycle
import SpotterRPC
import Synchronization

/// Pings PostgreSQL every few seconds and reports the result to the health service, so load
/// balancers stop sending traffic while the database is unreachable.
struct DatabaseHealthMonitor: Service {
    let pool: PostgresPool
    let state: ServingState
    let interval: Duration
    let logger: Logger

    /// How long a ping may take before the database counts as unreachable: a database that hangs
    /// (stopped, or behind a partition that never resets) answers nothing and fails nothing.
    var timeout: Duration = .seconds(5)
    /// Set while a ping waits for its answer; a hung one is not joined by another.
    private let waiting = Flag()

    /// Checks once and records the result. `SpotterApplication.run` calls it before the server
    /// listens, so its first `Health/Check` answers what the database is, not "not checked yet".
    func checkNow() async {
        let serving = await ping()
        if serving != state.isServing {
            logger.log(level: serving ? .info : .error, "database \(serving ? "reachable" : "unreachable")")
        }
        state.set(serving: serving)
    }

    /// The ping's answer, or `false` once `timeout` has passed without one (the ping goes on by
    /// itself; while it waits, no other is started and the database stays unreachable).
    private func ping() async -> Bool {
        guard waiting.set() else { return false }
        let answered = Flag()
        return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let answer: @Sendable (Bool) -> Void = { serving in
                if answered.set() { continuation.resume(returning: serving) }
            }
            Task { [pool, waiting] in
                let serving = (try? await pool.withConnection { await $0.ping() }) ?? false
                waiting.clear()
                answer(serving)
            }
            Task { [timeout] in
                try? await Task.sleep(for: timeout)
                answer(false)
            }
        }
    }

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try await Task.sleep(for: interval)
                await checkNow()
            }
        }
        state.set(serving: false)
    }
}

/// A flag set once, then cleared (or not) by whoever set it.
private final class Flag: Sendable {
    private let value = Mutex<Bool>(false)

    /// Sets it; `true` when it was not set before.
    func set() -> Bool {
        value.withLock { set in
            defer { set = true }; return !set
        }
    }

    func clear() { value.withLock { $0 = false } }
}
