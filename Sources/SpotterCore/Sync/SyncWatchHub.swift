import Foundation
import Synchronization

/// The open Watch streams of this process, by tenant. Whatever tells the process that a tenant's
/// data changed (PostgreSQL notifications, see `SyncFeedService`) calls `notify`; each of the
/// tenant's streams then gets one event. A slow stream keeps only the newest event: every event
/// means the same thing, "pull now".
///
/// A stream's first event, `opened`, promises that every later change will be signalled. So it is
/// sent only while notifications are live: a stream opened before the listener has connected, or
/// while it is reconnecting, gets `opened` once notifications resume.
public final class SyncWatchHub: Sendable {
    public enum Event: Sendable, Equatable, CaseIterable {
        /// The stream is open and changes from now on will be signalled: pull to catch up.
        case opened
        case changed
        /// The change notifications were interrupted and may have missed changes.
        case reconnected
    }

    private struct Stream {
        let continuation: AsyncStream<Event>.Continuation
        let opened: Bool
    }

    private struct State {
        var streams: [TenantID: [UUID: Stream]] = [:]
        /// Whether change notifications are arriving now.
        var live = false

        var all: [Stream] { streams.values.flatMap(\.values) }
    }

    public let limitPerTenant: Int
    private let state = Mutex(State())

    public init(limitPerTenant: Int = 10) {
        self.limitPerTenant = limitPerTenant
    }

    /// A new stream of `tenant`'s events, starting with `opened` once notifications are live. It
    /// leaves the hub when its consumer stops iterating (the client went away). `tooManyRequests`
    /// when the tenant already has `limitPerTenant` streams open.
    public func subscribe(_ tenant: TenantID) throws(SpotterError) -> AsyncStream<Event> {
        let (stream, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .bufferingNewest(1))
        let id = UUID()
        let limit = limitPerTenant
        try state.withLock { (state) throws(SpotterError) in
            guard state.streams[tenant, default: [:]].count < limit else {
                throw .tooManyRequests(
                    "watch: at most \(limit) streams per account may be open; close another device's stream first",
                    retryAfterSeconds: 30)
            }
            state.streams[tenant, default: [:]][id] = Stream(continuation: continuation, opened: state.live)
            if state.live { continuation.yield(.opened) }
        }
        continuation.onTermination = { [weak self] _ in self?.remove(tenant, id) }
        return stream
    }

    /// Tells each of `tenant`'s streams that something changed.
    public func notify(_ tenant: TenantID) {
        state.withLock { state in
            for stream in (state.streams[tenant] ?? [:]).values where stream.opened {
                stream.continuation.yield(.changed)
            }
        }
    }

    /// Notifications arrive from now on. Streams still waiting get `opened`; the others get
    /// `reconnected`, as changes may have gone unnoticed while notifications were interrupted.
    public func notificationsResumed() {
        state.withLock { state in
            state.live = true
            state.streams = state.streams.mapValues { streams in
                streams.mapValues { stream in
                    stream.continuation.yield(stream.opened ? .reconnected : .opened)
                    return Stream(continuation: stream.continuation, opened: true)
                }
            }
        }
    }

    /// Notifications stopped (the listening connection was lost): streams opened from now on wait
    /// for `opened` until `notificationsResumed`.
    public func notificationsInterrupted() {
        state.withLock { $0.live = false }
    }

    /// Whether change notifications are arriving now.
    public var isLive: Bool { state.withLock { $0.live } }

    /// Open streams of `tenant`, or of everyone.
    public func streamCount(_ tenant: TenantID? = nil) -> Int {
        state.withLock { state in
            tenant.map { state.streams[$0]?.count ?? 0 } ?? state.all.count
        }
    }

    /// Ends every stream (the server is stopping).
    public func finishAll() {
        for stream in state.withLock({ $0.all }) {
            stream.continuation.finish()
        }
    }

    private func remove(_ tenant: TenantID, _ id: UUID) {
        state.withLock { state in
            state.streams[tenant]?[id] = nil
            if state.streams[tenant]?.isEmpty == true { state.streams[tenant] = nil }
        }
    }
}
