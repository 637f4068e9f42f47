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
final class ActivityCache: Sendable {
    struct Entry: Sendable {
        var feedSeq: Int64
        var timeZone: String
        var workouts: [ActivityWorkout]
    }

    /// At most this many workouts in all (48 bytes each: about 12 MB); the least recently used
    /// lifters leave first.
    static let capacity = 250_000

    private struct State {
        var items: [TenantID: (entry: Entry, used: UInt64)] = [:]
        var clock: UInt64 = 0
        var workouts = 0
    }

    private let entries = Mutex(State())

    /// The lifter's entry, removed from the cache until the round stores one back.
    func take(_ tenant: TenantID) -> Entry? {
        entries.withLock { state -> Entry? in
            guard let found = state.items.removeValue(forKey: tenant) else { return nil }
            state.workouts -= found.entry.workouts.count
            return found.entry
        }
    }

    func store(_ tenant: TenantID, _ entry: Entry) {
        guard entry.workouts.count <= Self.capacity else { return }
        entries.withLock { state in
            state.clock += 1
            state.workouts += entry.workouts.count - (state.items[tenant]?.entry.workouts.count ?? 0)
            state.items[tenant] = (entry, state.clock)
            while state.workouts > Self.capacity,
                let oldest = state.items.min(by: { $0.value.used < $1.value.used })
            {
                state.workouts -= oldest.value.entry.workouts.count
                state.items[oldest.key] = nil
            }
        }
    }

}
