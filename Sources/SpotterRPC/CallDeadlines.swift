import Dispatch
import Synchronization

/// The deadlines of the calls in flight, checked by one repeating timer rather than a dispatch
/// timer per call: arming and cancelling a timer of its own cost every call two wake-ups of
/// libdispatch's manager thread. A deadline fires at most `resolution` late.
final class CallDeadlines: Sendable {
    /// The server's calls' deadlines (30 s, or 300 s for an import): a tenth of a second late is
    /// nothing.
    static let shared = CallDeadlines(resolution: .milliseconds(100))

    private struct Entry {
        let due: ContinuousClock.Instant
        let fire: @Sendable () -> Void
    }

    private struct State {
        var nextID: UInt64 = 0
        var entries: [UInt64: Entry] = [:]
    }

    private let state = Mutex(State())
    // Set up once and only cancelled after; DispatchSource is thread-safe.
    private nonisolated(unsafe) let timer: any DispatchSourceTimer

    init(resolution: Duration) {
        let queue = DispatchQueue(label: "spotter.rpc-deadlines")
        timer = DispatchSource.makeTimerSource(queue: queue)
        let (seconds, attoseconds) = resolution.components
        let interval = DispatchTimeInterval.nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
        timer.schedule(deadline: .now() + interval, repeating: interval)
        timer.setEventHandler { [weak self] in self?.fireDue() }
        timer.activate()
    }

    deinit {
        timer.cancel()
    }

    /// Calls `fire` once `limit` has passed, unless `cancel` is called with the returned id first.
    func add(after limit: Duration, _ fire: @escaping @Sendable () -> Void) -> UInt64 {
        let entry = Entry(due: .now + limit, fire: fire)
        return state.withLock { state in
            state.nextID += 1
            state.entries[state.nextID] = entry
            return state.nextID
        }
    }

    /// Forgets the deadline `id` (whether or not it fired).
    func cancel(_ id: UInt64) {
        _ = state.withLock { state in state.entries.removeValue(forKey: id) }
    }

    /// The deadlines in flight.
    var count: Int { state.withLock { $0.entries.count } }

    private func fireDue() {
        let now = ContinuousClock.now
        let due = state.withLock { state in
            var due: [@Sendable () -> Void] = []
            for (id, entry) in state.entries where entry.due <= now {
                due.append(entry.fire)
                state.entries[id] = nil
            }
            return due
        }
        for fire in due { fire() }
    }
}
