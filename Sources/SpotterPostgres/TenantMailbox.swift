import Synchronization

/// Tenant ids handed over by committed transactions, collected until a single consumer takes
/// them: many hand-overs between two takes fold into one set, so a busy tenant costs its consumer
/// one round of work per take, not one per transaction.
public final class TenantMailbox: Sendable {
    private let pending = Mutex<Set<Substring>>([])
    private let doorbell: AsyncStream<Void>
    private let ring: AsyncStream<Void>.Continuation

    public init() {
        (doorbell, ring) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Hands over space-separated tenant ids, as the feed triggers write them.
    public func post(_ tenants: String) {
        let ids = tenants.split(separator: " ")
        guard !ids.isEmpty else { return }
        pending.withLock { $0.formUnion(ids) }
        ring.yield()
    }

    /// Calls `body` with everything handed over since its last call, until the task is cancelled;
    /// with `settling`, first waits that long after a hand-over, so a burst folds into one call.
    /// One consumer per mailbox.
    public func deliver(settling: Duration = .zero, _ body: (Set<Substring>) async -> Void) async {
        for await _ in doorbell {
            if settling > .zero { try? await Task.sleep(for: settling) }
            let tenants = pending.withLock { pending in
                defer { pending = [] }
                return pending
            }
            guard !tenants.isEmpty else { continue }
            await body(tenants)
        }
    }
}
