import Logging
import Postgres
import ServiceLifecycle
import SpotterRPC

/// Pings PostgreSQL every few seconds and reports the result to the health service, so load
/// balancers stop sending traffic while the database is unreachable.
struct DatabaseHealthMonitor: Service {
    let pool: PostgresPool
    let state: ServingState
    let interval: Duration
    let logger: Logger

    /// Checks once and records the result. `SpotterApplication.run` calls it before the server
    /// listens, so its first `Health/Check` answers what the database is, not "not checked yet".
    func checkNow() async {
        let serving: Bool
        do {
            serving = try await pool.withConnection { await $0.ping() }
        } catch {
            serving = false
        }
        if serving != state.isServing {
            logger.log(level: serving ? .info : .error, "database \(serving ? "reachable" : "unreachable")")
        }
        state.set(serving: serving)
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
