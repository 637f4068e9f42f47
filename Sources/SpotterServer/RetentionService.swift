import Logging
import ServiceLifecycle
import SpotterPostgres

/// Deletes what is kept only for a while (`SpotterDatabase.purgeOld`) and slides Discover's
/// popularity window (`SpotterDatabase.refreshPopularity`), once an interval, from the first minute
/// on. Every replica runs it; a pass that finds nothing to do changes nothing.
struct RetentionService: Service {
    let database: SpotterDatabase
    let accessLogDays: Int
    let interval: Duration
    let logger: Logger

    func run() async throws {
        await periodically(every: interval) {
            await attempt("retention purge", logger: logger) {
                let purged = try await database.purgeOld(accessLogDays: accessLogDays)
                let counts = purged.counts.filter { $0.count > 0 }
                if !counts.isEmpty {
                    logger.info(
                        "purged old rows",
                        metadata: Logger.Metadata(uniqueKeysWithValues: counts.map { ($0.name, "\($0.count)") }))
                }
            }
            await attempt("popularity recount", logger: logger) {
                let recounted = try await database.refreshPopularity()
                if recounted > 0 {
                    logger.info("recounted publications' popularity", metadata: ["publications": "\(recounted)"])
                }
            }
        }
    }
}
