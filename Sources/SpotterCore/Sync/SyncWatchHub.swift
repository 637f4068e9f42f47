import Foundation
import Synchronization

/// The open Watch streams of this process, by tenant. Whatever tells the process that a tenant's
/// data changed (PostgreSQL notifications, see `SyncFeedService`) calls `notify`; each of the
/// tenant's streams then gets one event. A slow stream keeps only the newest event: every event
/// means the same thing, "pull now".
public final class SyncWatchHub: Sendable {
    public enum Event: Sendable, Equatable, CaseIterable {
        /// The stream is open: pull to catch up.
        case opened
        case changed
        /// The change notifications were interrupted and may have missed changes.
        case reconnected
    }

    public let limitPerTenant: Int
    private let streams = Mutex<[TenantID: [UUID: AsyncStream<Event>.Continuation]]>([:])

    public init(limitPerTenant: Int = 10) {
        self.limitPerTenant = limitPerTenant
    }

    /// A new stream of `tenant`'s events, starting with `opened`. It leaves the hub when its
    /// consumer stops iterating (the client went away). `tooManyRequests` when the tenant already
    /// has `limitPerTenant` streams open.
    public func subscribe(_ tenant: TenantID) throws(SpotterError) -> AsyncStream<Event> {
        let (stream, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .bufferingNewest(1))
        let id = UUID()
        let limit = limitPerTenant
        try streams.withLock { (streams) throws(SpotterError) in
            guard streams[tenant, default: [:]].count < limit else {
                throw .tooManyRequests(
                    "watch: at most \(limit) streams per account may be open; close another device's stream first",
                    retryAfterSeconds: 30)
            }
            streams[tenant, default: [:]][id] = continuation
        }
        continuation.onTermination = { [weak self] _ in self?.remove(tenant, id) }
        continuation.yield(.opened)
        return stream
    }

    /// Tells each of `tenant`'s streams that something changed.
    public func notify(_ tenant: TenantID) {
        for continuation in streams.withLock({ Array(($0[tenant] ?? [:]).values) }) {
            continuation.yield(.changed)
        }
    }

    /// Tells every stream to pull, as changes may have gone unnoticed.
    public func reconnected() {
        for continuation in streams.withLock({ $0.values.flatMap(\.values) }) {
            continuation.yield(.reconnected)
        }
    }

    /// Open streams of `tenant`, or of everyone.
    public func streamCount(_ tenant: TenantID? = nil) -> Int {
        streams.withLock { streams in
            tenant.map { streams[$0]?.count ?? 0 } ?? streams.values.reduce(0) { $0 + $1.count }
        }
    }

    /// Ends every stream (the server is stopping).
    public func finishAll() {
        for continuation in streams.withLock({ $0.values.flatMap(\.values) }) {
            continuation.finish()
        }
    }

    private func remove(_ tenant: TenantID, _ id: UUID) {
        streams.withLock { streams in
            streams[tenant]?[id] = nil
            if streams[tenant]?.isEmpty == true { streams[tenant] = nil }
        }
    }
}
