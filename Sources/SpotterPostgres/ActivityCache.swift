import Foundation
import SpotterCore
import Synchronization

/// The workouts' starts of the lifters reconciled last, as of the feed number their reconciliation
/// kept (`activity_state.feed_seq`), so the next round of a lifter who only logged new workouts
/// reads those instead of all of history. An entry is used only while it matches the kept state
/// exactly (the same feed number and time zone): a reconciliation elsewhere (another replica), a
/// rolled-back one, or any other change sends the round back to reading everything.
final class ActivityCache: Sendable {
    struct Entry: Sendable {
        var feedSeq: Int64
        var timeZone: String
        var workouts: [ActivityWorkout]
    }

    /// At most this many lifters; the least recently used leaves first.
    static let capacity = 512

    private let entries = Mutex<(items: [TenantID: (entry: Entry, used: UInt64)], clock: UInt64)>(([:], 0))

    func entry(_ tenant: TenantID) -> Entry? {
        entries.withLock { state in
            guard let found = state.items[tenant] else { return nil }
            state.clock += 1
            state.items[tenant]?.used = state.clock
            return found.entry
        }
    }

    func store(_ tenant: TenantID, _ entry: Entry) {
        entries.withLock { state in
            state.clock += 1
            state.items[tenant] = (entry, state.clock)
            if state.items.count > Self.capacity, let oldest = state.items.min(by: { $0.value.used < $1.value.used }) {
                state.items[oldest.key] = nil
            }
        }
    }

    func forget(_ tenant: TenantID) {
        entries.withLock { _ = $0.items.removeValue(forKey: tenant) }
    }
}
