import Postgres
import Synchronization

/// Sends the Watch notifications of committed transactions (`NOTIFY spotter_sync, '<tenant id>'`)
/// off the calls' path. A transaction of `SpotterDatabase` that changed synced data hands over its
/// tenants once it has committed (the feed triggers note them:
/// `Migrations/0020_feed_notify_after_commit.sql`) and its call goes on; one loop (`run`, in
/// spotterd's `SyncFeedService`) sends everything handed over since its last statement in one
/// statement of its own. Under load many calls' notifications share a round trip; a lone change is
/// notified one round trip after its commit.
///
/// Not sent from inside the writing transaction: a transaction that notifies holds PostgreSQL's
/// database-wide notification lock through its commit, which made concurrent writers commit one
/// at a time. A notification that cannot be sent is dropped: it is a hint to pull, and the change
/// is stored.
public final class WatchNotifier: Sendable {
    private let pool: PostgresPool
    private let mailbox = TenantMailbox()

    init(pool: PostgresPool) {
        self.pool = pool
    }

    /// Hands over the tenants whose feeds a committed transaction changed: space-separated ids, as
    /// the feed triggers write them.
    func changed(_ feeds: String) {
        mailbox.post(feeds)
    }

    /// Sends what is handed over until the task is cancelled. One process runs one loop.
    public func run() async {
        await mailbox.deliver { tenants in
            _ = try? await pool.withConnection { connection in
                try await connection.query(
                    "SELECT pg_notify('spotter_sync', tenant) FROM unnest(string_to_array($1, ' ')) AS tenant",
                    [tenants.joined(separator: " ")])
            }
        }
    }
}
