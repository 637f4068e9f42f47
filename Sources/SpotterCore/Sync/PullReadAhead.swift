import Foundation
import Synchronization

/// Reads the next page of a pull while the device is still receiving the current one.
///
/// A device that was offline, or a new one, pulls page after page, and each request waits for the
/// answer to the one before (it carries that answer's cursor). So the database, the server and the
/// device take turns. When a page is not the last, the service starts reading the next one at once;
/// the device's next request, if it comes soon and asks exactly for it, takes that read instead of
/// starting its own.
///
/// Serving a page read a moment earlier is as correct as reading it now: it holds every change
/// after its cursor up to the moment it was read, from one snapshot, and its own cursor ends
/// there, so what commits later is sent on the next page. `last_mutation_id` may be lower than
/// the device's newest push, which only makes the device push again; pushes are idempotent.
final class PullReadAhead: Sendable {
    struct Key: Hashable {
        var account: AccountID
        var tenant: TenantID
        var seq: Int64
        var firstPullThrough: Int64
        var limit: Int
        var device: DeviceID?

        init(_ principal: Principal, _ cursor: SyncCursor, limit: Int, device: DeviceID?) {
            account = principal.accountID
            tenant = principal.tenantID
            seq = cursor.seq
            firstPullThrough = cursor.firstPullThrough
            self.limit = limit
            self.device = device
        }
    }

    private struct Read {
        let task: Task<PullPage?, any Error>
        let started: ContinuousClock.Instant
    }

    /// Reads not taken within this long are dropped (the device stopped pulling, or went elsewhere).
    let lifetime: Duration
    /// At most this many reads are kept; the oldest goes first. Each read under way holds one of
    /// the pool's connections for a page's statements, so this also bounds what reading ahead
    /// takes from other calls (the pool has 16 by default).
    let capacity: Int
    private let reads = Mutex<[Key: Read]>([:])
    private let taken = Atomic<Int>(0)

    init(lifetime: Duration = .seconds(10), capacity: Int = 8) {
        self.lifetime = lifetime
        self.capacity = capacity
    }

    /// Starts `read` for `key` unless one is under way already.
    func start(_ key: Key, _ read: @escaping @Sendable () async throws -> PullPage?) {
        let now = ContinuousClock.now
        let dropped = reads.withLock { reads -> [Read] in
            guard reads[key] == nil else { return [] }
            var dropped: [Read] = []
            for (stale, entry) in reads where now - entry.started > lifetime {
                dropped.append(reads.removeValue(forKey: stale)!)
            }
            if reads.count >= capacity, let oldest = reads.min(by: { $0.value.started < $1.value.started }) {
                dropped.append(reads.removeValue(forKey: oldest.key)!)
            }
            reads[key] = Read(task: Task { try await read() }, started: now)
            return dropped
        }
        for read in dropped { read.task.cancel() }
    }

    /// The page read ahead for `key`, waiting for it if it is still being read; `nil` when there
    /// is none, it is too old, or it failed (the caller then reads the page itself).
    func take(_ key: Key) async -> PullPage? {
        guard let read = reads.withLock({ $0.removeValue(forKey: key) }) else { return nil }
        guard ContinuousClock.now - read.started <= lifetime, let page = try? await read.task.value else {
            read.task.cancel()
            return nil
        }
        taken.add(1, ordering: .relaxed)
        return page
    }

    /// How many pages were served from reads ahead so far.
    var takenCount: Int { taken.load(ordering: .relaxed) }
}
