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

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                let serving = await check()
                if serving != state.isServing {
                    logger.log(level: serving ? .info : .error, "database \(serving ? "reachable" : "unreachable")")
                }
                state.set(serving: serving)
                try await Task.sleep(for: interval)
            }
        }
        state.set(serving: false)
    }

    private func check() async -> Bool {
        do {
            return try await pool.withConnection { await $0.ping() }
        } catch {
            return false
        }
    }
}
