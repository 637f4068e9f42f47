import Foundation
import Postgres
import SpotterCore

/// What one retention pass deleted.
public struct RetentionPurge: Sendable, Equatable {
    public var accessLogRows: Int
    public var addresses: Int
    public var challenges: Int

    public init(accessLogRows: Int, addresses: Int, challenges: Int) {
        self.accessLogRows = accessLogRows
        self.addresses = addresses
        self.challenges = challenges
    }
}

extension SpotterDatabase {
    /// Deletes coaches' access-log rows older than `accessLogDays`, sign-in failure counts of
    /// addresses quiet for a day, and two-factor challenges expired a day ago, by the database's
    /// clock (`spotter_purge_old`, migration 0014).
    public func purgeOld(accessLogDays: Int) async throws -> RetentionPurge {
        try await withoutTenant { connection in
            let row = try await connection.query(
                "SELECT access_log, addresses, challenges FROM spotter_purge_old($1)", [accessLogDays]
            ).single
            return RetentionPurge(
                accessLogRows: try row?.decode("access_log", as: Int.self) ?? 0,
                addresses: try row?.decode("addresses", as: Int.self) ?? 0,
                challenges: try row?.decode("challenges", as: Int.self) ?? 0)
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
