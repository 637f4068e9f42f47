import Logging
import Postgres
import ServiceLifecycle
import SpotterCore
import SpotterPostgres

extension PostgresConfiguration {
    func named(_ applicationName: String) -> PostgresConfiguration {
        var named = self
        named.applicationName = applicationName
        return named
    }
}

/// Carries PostgreSQL's change notifications to this process's Watch streams, sends this process's
/// own (`WatchNotifier`), and purges old deletions from the change feed.
///
/// Every transaction of `SpotterDatabase` that changes a tenant's synced data is followed, once
/// committed, by `NOTIFY spotter_sync, '<tenant id>'` (the feed triggers note the tenants:
/// `Migrations/0020_feed_notify_after_commit.sql`), whichever `spotterd` replica ran it. This
/// service keeps one connection that LISTENs and hands each notification to the hub. Streams get their first event only once it
/// is listening. When that connection is lost it reconnects (backing off to 5 s) and sends every
/// stream a "reconnected" hint, because notifications sent meanwhile are lost.
struct SyncFeedService: Service {
    static let channel = "spotter_sync"
    /// The listening connection's `application_name`, to find it in `pg_stat_activity`.
    static let listenerName = "spotterd-sync-listener"

    let configuration: PostgresConfiguration
    let hub: SyncWatchHub
    let notifier: WatchNotifier
    let sync: SyncService
    let purgeInterval: Duration
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                group.addTask { await listen() }
                group.addTask { await notifier.run() }
                group.addTask { await purge() }
            }
        }
        hub.finishAll()
    }

    private func listen() async {
        var backoff = Duration.milliseconds(100)
        while !Task.isCancelled {
            do {
                let connection = try await PostgresConnection.connect(configuration)
                do {
                    try await connection.listen(Self.channel)
                    logger.info("listening for sync notifications")
                    backoff = .milliseconds(100)
                    hub.notificationsResumed()
                    try await relay(connection)
                } catch {
                    await connection.close()
                    throw error
                }
            } catch is CancellationError {
                return
            } catch {
                hub.notificationsInterrupted()
                guard !Task.isCancelled else { return }
                logger.warning(
                    "sync notifications interrupted; reconnecting",
                    metadata: [
                        "error": "\(error)",
                        "retry_ms":
                            "\(backoff.wholeMilliseconds)",
                    ])
                try? await Task.sleep(for: backoff)
                backoff = min(backoff * 2, .seconds(5))
            }
        }
    }

    /// Hands notifications to the hub until the connection fails or the task is cancelled. A quiet
    /// connection is checked every few seconds, so a dead one is noticed without traffic.
    private func relay(_ connection: PostgresConnection) async throws {
        var quiet = Duration.zero
        while !Task.isCancelled {
            let arrived = try await connection.notifications(timeout: .milliseconds(500))
            for notification in arrived {
                if let tenant = TenantID(notification.payload) { hub.notify(tenant) }
            }
            quiet = arrived.isEmpty ? quiet + .milliseconds(500) : .zero
            if quiet >= .seconds(5) {
                try await connection.execute("SELECT 1")
                quiet = .zero
            }
        }
        await connection.close()
        throw CancellationError()
    }

    private func purge() async {
        while !Task.isCancelled {
            await attempt("sync purge", logger: logger) {
                let purged = try await sync.purge()
                if purged > 0 { logger.info("purged old sync tombstones", metadata: ["count": "\(purged)"]) }
            }
            try? await Task.sleep(for: purgeInterval)
        }
    }
}
