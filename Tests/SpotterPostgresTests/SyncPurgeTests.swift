import Foundation
import Postgres
import SpotterCore
import SpotterPostgres
import SpotterTestSupport
import Synchronization
import Testing

/// Purging old tombstones, and the reset a device too far behind must do.
@Suite("Offline-first sync on PostgreSQL: purge and reset")
struct SyncPurgeTests {
    private let start = syncTestStart()

    // MARK: 9. Purge and reset

    @Test("purging old tombstones makes older cursors reset; newer and empty cursors still work")
    func purgeAndReset() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock(start)
            let sync = database.syncService(clock: clock, retentionDays: 30)
            let ada = try await database.lifter("ada")
            var phone = try await SimulatedDevice.register(sync, ada, label: "phone")
            let (w1, w2, w3) = (UUID(), UUID(), UUID())
            let day = clock.now.addingTimeInterval(-3600)
            let seed = [
                phone.put(.workout(workoutDraft("Mon", at: day)), w1, base: 0),
                phone.put(.workout(workoutDraft("Tue", at: day)), w2, base: 0),
            ]
            _ = try await phone.push(sync, seed)
            try await phone.pullAll(sync)
            let beforeDelete = phone.cursor
            _ = try await phone.push(sync, [phone.delete(.workout, w1, base: 1)])
            try await phone.pullAll(sync)
            let afterDelete = phone.cursor

            // Within the retention period nothing goes. Time passes for the feed's rows, which
            // the database's clock stamped and the purge compares with that clock.
            try await age(database, ada, days: 29)
            #expect(try await sync.purge() == 0)
            let kept = try await pullAll(sync, ada, from: beforeDelete)
            #expect(kept.changes.map(\.key) == [SyncObjectKey(.workout, w1)] && kept.changes.first?.object == nil)

            try await age(database, ada, days: 2)
            _ = try await phone.push(sync, [phone.put(.workout(workoutDraft("Wed", at: clock.now)), w3, base: 0)])
            #expect(try await sync.purge() == 1)
            #expect(try await database.count("SELECT count(*)::int FROM sync_changes WHERE deleted") == 0)

            // A cursor from before the purged tombstone must start over.
            await #expect(throws: SpotterError.syncResetRequired(retentionDays: 30)) {
                try await sync.pull(ada, cursor: beforeDelete, pageSize: 10, deviceID: "")
            }
            // One that saw the tombstone goes on.
            let later = try await pullAll(sync, ada, from: afterDelete)
            #expect(later.changes.map(\.key) == [SyncObjectKey(.workout, w3)])
            // An empty cursor always works.
            let fresh = try await pullAll(sync, ada)
            #expect(
                Set(fresh.changes.map(\.key))
                    == [
                        SyncObjectKey(.workout, w2), SyncObjectKey(.workout, w3),
                        SyncObjectKey(.profile, ada.tenantID.rawValue),
                    ])
            // A cursor ahead of the feed is not this account's.
            await #expect(throws: SpotterError.syncResetRequired(retentionDays: 30)) {
                try await sync.pull(
                    ada, cursor: SyncCursor(seq: 10_000, tenant: ada.tenantID).token, pageSize: 10, deviceID: "")
            }

            // Stored results went with the retention: a replay answers "applied" and changes nothing.
            let before = try await counts(database, ada)
            let replay = try await phone.push(sync, seed)
            #expect(replay.map(\.status) == [.applied, .applied])
            #expect(replay.allSatisfy { !$0.message.isEmpty })
            #expect(try await counts(database, ada) == before)
        }
    }
}
