import Foundation
import SpotterCore
import Synchronization

/// The workouts' starts of the lifters reconciled last, as of the feed number their reconciliation
/// kept (`activity_state.feed_seq`), so the next round of a lifter who only logged new workouts
/// reads those instead of all of history. An entry is used only while it matches the kept state
/// exactly (the same feed number and time zone): a reconciliation elsewhere (another replica), a
/// rolled-back one, or any other change sends the round back to reading everything.
///
/// A round takes its lifter's entry out (`take`) and stores what it read back, so while it runs it
/// holds the only reference to the workouts and appends the new ones in place: a lifter's list grows
/// by doubling its capacity instead of being copied on every round (with a lifter logging steadily,
/// copies of ever longer lists made spotterd's memory grow for as long as the history did).
///
/// When it is full, the least recently stored lifters leave first, but only those not stored for
/// `settled`: with more lifters logging at once than it holds, evicting the least recent would
/// evict the lifter whose round comes next, and every round would read everything; instead the
/// newcomer is not kept, and the lifters it holds keep their shortcut.
final class ActivityCache: Sendable {
    struct Entry: Sendable {
        var feedSeq: Int64
        var timeZone: String
        var workouts: [ActivityWorkout]
    }

    /// At most this many workouts in all (48 bytes each: about 12 MB).
    static let defaultCapacity = 250_000
    /// How long a stored entry is safe from eviction.
    static let defaultSettled = Duration.seconds(10)

    let capacity: Int
    let settled: Duration

    private struct State {
        var items: [TenantID: (entry: Entry, stored: ContinuousClock.Instant)] = [:]
        var workouts = 0
    }

    private let entries = Mutex(State())

    init(capacity: Int = defaultCapacity, settled: Duration = defaultSettled) {
        self.capacity = capacity
        self.settled = settled
    }

    /// The lifter's entry, removed from the cache until the round stores one back.
    func take(_ tenant: TenantID) -> Entry? {
        entries.withLock { state -> Entry? in
            guard let found = state.items.removeValue(forKey: tenant) else { return nil }
            state.workouts -= found.entry.workouts.count
            return found.entry
        }
    }

    /// Keeps `entry` for the lifter's next round, unless the cache is full of entries stored less
    /// than `settled` ago.
    func store(_ tenant: TenantID, _ entry: Entry, now: ContinuousClock.Instant = .now) {
        guard entry.workouts.count <= capacity else { return }
        entries.withLock { state in
            state.workouts -= state.items.removeValue(forKey: tenant)?.entry.workouts.count ?? 0
            var over = state.workouts + entry.workouts.count - capacity
            if over > 0 {
                // The settled entries, oldest first, that make room; none go unless that is enough.
                var leaving: [TenantID] = []
                for (other, item) in state.items.sorted(by: { $0.value.stored < $1.value.stored }) {
                    guard over > 0, now - item.stored >= settled else { break }
                    leaving.append(other)
                    over -= item.entry.workouts.count
                }
                guard over <= 0 else { return }
                for other in leaving { state.workouts -= state.items.removeValue(forKey: other)!.entry.workouts.count }
            }
            state.items[tenant] = (entry, now)
            state.workouts += entry.workouts.count
        }
    }
}
