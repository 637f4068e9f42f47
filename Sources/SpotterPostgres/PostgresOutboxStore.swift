import Foundation
import Postgres
import SpotterCore

/// `OutboxStore` on PostgreSQL, working as the `spotter_mailer` role. Claims use
/// `FOR UPDATE SKIP LOCKED` and a lease, so several spotterd replicas never send one message twice
/// at once.
public struct PostgresOutboxStore: OutboxStore {
    private let pool: PostgresPool

    /// `pool` must work as the mailer role.
    public init(pool: PostgresPool) {
        self.pool = pool
    }

    /// Messages not sent, by status: `pending` (waiting for a first attempt or a retry) and
    /// `failed` (given up).
    public func backlog() async throws -> [String: Int] {
        try await translatingErrors {
            try await pool.withConnection { connection in
                var counts = ["pending": 0, "failed": 0]
                for row in try await connection.query(
                    "SELECT status, count(*)::int AS n FROM email_outbox WHERE status <> 'sent' GROUP BY status")
                {
                    counts[try row.decode("status")] = try row.decode("n")
                }
                return counts
            }
        }
    }

    public func claimDue(now: Date, leaseUntil: Date, limit: Int) async throws -> [OutboxDelivery] {
        try await translatingErrors {
            try await pool.withTransaction { connection in
                // Notifications whose news no longer holds (a comment deleted, a link ended) go first.
                try await connection.query("SELECT spotter_withdraw_stale_notifications()")
                return try await connection.query(
                    """
                    UPDATE email_outbox o SET attempts = o.attempts + 1, next_attempt_at = $2
                    FROM (
                        SELECT tenant_id, message_id FROM email_outbox
                        WHERE status = 'pending' AND next_attempt_at <= $1
                        ORDER BY next_attempt_at
                        LIMIT $3
                        FOR UPDATE SKIP LOCKED
                    ) due
                    WHERE o.tenant_id = due.tenant_id AND o.message_id = due.message_id
                    RETURNING o.tenant_id, o.message_id, o.recipient, o.subject, o.body, o.attempts, o.link_path
                    """,
                    [now, leaseUntil, limit]
                ).map { row in
                    OutboxDelivery(
                        tenantID: TenantID(rawValue: try row.decode("tenant_id")),
                        id: try row.decode("message_id"),
                        recipient: try row.decode("recipient"),
                        subject: try row.decode("subject"),
                        body: try row.decode("body"),
                        attempt: try row.decode("attempts"),
                        linkPath: try row.decode("link_path")
                    )
                }
            }
        }
    }

    public func markSent(_ delivery: OutboxDelivery, at: Date) async throws {
        try await translatingErrors {
            try await pool.withTransaction { connection in
                try await connection.query(
                    """
                    UPDATE email_outbox SET status = 'sent', sent_at = $3, last_error = NULL
                    WHERE tenant_id = $1 AND message_id = $2
                    """,
                    [delivery.tenantID.rawValue, delivery.id, at]
                )
            }
        }
    }

    public func markFailed(_ delivery: OutboxDelivery, error: String, retryAt: Date?) async throws {
        try await translatingErrors {
            try await pool.withTransaction { connection in
                try await connection.query(
                    """
                    UPDATE email_outbox
                    SET status = CASE WHEN $4::timestamptz IS NULL THEN 'failed' ELSE 'pending' END,
                        next_attempt_at = coalesce($4, next_attempt_at), last_error = $3
                    WHERE tenant_id = $1 AND message_id = $2
                    """,
                    [delivery.tenantID.rawValue, delivery.id, String(error.prefix(1000)), retryAt]
                )
            }
        }
    }
}
