import Foundation
import Postgres
import SpotterCore

/// What one retention pass deleted.
public struct RetentionPurge: Sendable, Equatable {
    public var accessLogRows = 0
    public var addresses = 0
    public var challenges = 0
    /// Sessions ended 30 days ago, refresh tokens and e-mailed account tokens expired a day ago,
    /// e-mails sent 30 days ago (migration 0037).
    public var sessions = 0
    public var refreshTokens = 0
    public var accountTokens = 0
    public var emails = 0
    /// Usernames given up whose 14-day hold ended (migration 0055).
    public var usernameHolds = 0

    public init() {}

    /// Every count, named for the log.
    public var counts: [(name: String, count: Int)] {
        [
            ("access_log", accessLogRows), ("addresses", addresses), ("challenges", challenges),
            ("sessions", sessions), ("refresh_tokens", refreshTokens), ("account_tokens", accountTokens),
            ("emails", emails), ("username_holds", usernameHolds),
        ]
    }
}

extension SpotterDatabase {
    /// Deletes what is kept only for a while, by the database's clock, in one transaction: coaches'
    /// access-log rows older than `accessLogDays`, sign-in failure counts of addresses quiet for a
    /// day and two-factor challenges expired a day ago (`spotter_purge_old`, migration 0014);
    /// sessions ended 30 days ago (their last use kept on the account), refresh and account tokens
    /// expired a day ago, and e-mails sent 30 days ago (`spotter_purge_credentials`, migration 0037);
    /// usernames given up whose hold ended (`spotter_purge_username_holds`, migration 0055).
    public func purgeOld(accessLogDays: Int) async throws -> RetentionPurge {
        try await withoutTenant { connection in
            let rows = try await connection.pipeline([
                ("SELECT access_log, addresses, challenges FROM spotter_purge_old($1)", [accessLogDays]),
                (
                    """
                    SELECT ended_sessions, expired_refresh_tokens, expired_account_tokens, sent_emails
                    FROM spotter_purge_credentials()
                    """, []
                ),
                ("SELECT spotter_purge_username_holds() AS holds", []),
            ])
            var purged = RetentionPurge()
            if let row = rows[0].single {
                purged.accessLogRows = try row.decode("access_log")
                purged.addresses = try row.decode("addresses")
                purged.challenges = try row.decode("challenges")
            }
            if let row = rows[1].single {
                purged.sessions = try row.decode("ended_sessions")
                purged.refreshTokens = try row.decode("expired_refresh_tokens")
                purged.accountTokens = try row.decode("expired_account_tokens")
                purged.emails = try row.decode("sent_emails")
            }
            purged.usernameHolds = Int(try rows[2].single?.decode("holds") as Int64? ?? 0)
            return purged
        }
    }

    /// Slides Discover's 30-day popularity window to today (UTC) for every publication last
    /// counted before it (`spotter_refresh_popularity`, migration 0023), so that the first read of
    /// a day need not; returns how many were recounted.
    @discardableResult
    public func refreshPopularity(now: Date = Date()) async throws -> Int {
        try await withoutTenant { connection in
            try await connection.query(
                "SELECT spotter_refresh_popularity(($1::timestamptz AT TIME ZONE 'UTC')::date) AS recounted", [now]
            ).single?.decode("recounted") ?? 0
        }
    }
}
