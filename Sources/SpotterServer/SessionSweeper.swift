import Logging
import ServiceLifecycle
import SpotterPostgres

/// Closes guided sessions idle for a day as abandoned (`SpotterDatabase.abandonStaleSessions`),
/// once an interval. Reads of a session close it as well, so a session never looks open past its
/// day; the sweep makes the close visible to watchers and to the coach without anyone asking.
/// Every replica runs it; a sweep that finds nothing changes nothing.
struct SessionSweeper: Service {
    let database: SpotterDatabase
    let interval: Duration
    let logger: Logger

    func run() async throws {
        await periodically(every: interval) {
            await attempt("closing idle guided sessions", logger: logger) {
                let closed = try await database.abandonStaleSessions()
                if closed > 0 { logger.info("closed idle guided sessions", metadata: ["sessions": "\(closed)"]) }
            }
        }
    }
}
