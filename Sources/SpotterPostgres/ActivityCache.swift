import Foundation
import SpotterCore
import Synchronization

/// The workouts of the lifters reconciled last, folded (`ActivityTally`), as of the feed number
/// their reconciliation kept (`activity_kept.feed_seq`), so the next round of a lifter who only
/// logged new workouts folds in those instead of reading all of history. An entry is used only
/// while it matches the kept state exactly (the same feed number, time zone, birthday and
/// challenges): a reconciliation elsewhere (another replica), a rolled-back one, or any other
/// change sends the round back to reading everything.
///
/// A round takes its lifter's entry out (`take`) and stores what it folded back. An entry's size
/// does not grow with the lifter's workouts (a kilobyte or two, and 16 bytes more per week with a
/// workout), so a lifter logging steadily does not make spotterd's memory grow.
///
/// When it is full, the least recently stored lifters leave first, but only those not stored for
/// `settled`: with more lifters logging at once than it holds, evicting the least recent would
/// evict the lifter whose round comes next, and every round would read everything; instead the
/// newcomer is not kept, and the lifters it holds keep their shortcut.
final class ActivityCache: Sendable {
    struct Entry: Sendable {
        var feedSeq: Int64
        var timeZone: String
        var tally: ActivityTally
        /// While the lifter has no personal record yet: each exercise's first start and best, so a
        /// round of new workouts checks their sets against them instead of probing the history
        /// (`PostgresActivityStore.RecordBaseline`). `nil` once there is a record, or when not read.
        var baselines: [PostgresActivityStore.RecordBaseline]? = nil
    }

    /// At most this many lifters.
    static let defaultCapacity = 10_000
    /// How long a stored entry is safe from eviction.
    static let defaultSettled = Duration.seconds(10)

    let capacity: Int
    let settled: Duration

    private let entries = Mutex([TenantID: (entry: Entry, stored: ContinuousClock.Instant)]())

    init(capacity: Int = defaultCapacity, settled: Duration = defaultSettled) {
        self.capacity = capacity
        self.settled = settled
    }

    /// The lifter's entry, removed from the cache until the round stores one back.
    func take(_ tenant: TenantID) -> Entry? {
        entries.withLock { $0.removeValue(forKey: tenant)?.entry }
    }

    /// Keeps `entry` for the lifter's next round, unless the cache is full of entries stored less
    /// than `settled` ago.
    func store(_ tenant: TenantID, _ entry: Entry, now: ContinuousClock.Instant = .now) {
        entries.withLock { items in
            if items[tenant] == nil, items.count >= capacity {
                // The oldest entry makes room, if it has settled.
                guard let oldest = items.min(by: { $0.value.stored < $1.value.stored }),
                    now - oldest.value.stored >= settled
                else { return }
                items.removeValue(forKey: oldest.key)
            }
            items[tenant] = (entry, now)
        }
    }
}
