import Synchronization
import Testing

@testable import SpotterPostgres

/// The hand-over from committed transactions to the loops that work after them (the Watch
/// notifier, the achievements' reconciler).
@Suite("Tenant mailbox")
struct TenantMailboxTests {
    /// What a consumer was given, and when.
    final class Takes: Sendable {
        private let list = Mutex<[(Set<String>, ContinuousClock.Instant)]>([])
        func note(_ tenants: Set<Substring>) { list.withLock { $0.append((Set(tenants.map(String.init)), .now)) } }
        var all: [(tenants: Set<String>, at: ContinuousClock.Instant)] { list.withLock { $0 } }

        /// Waits (at most five seconds) until `count` takes are noted.
        func wait(for count: Int) async throws {
            for _ in 0..<500 where all.count < count { try await Task.sleep(for: .milliseconds(10)) }
            try #require(all.count == count)
        }
    }

    @Test("hand-overs before a take fold into one set, each tenant once; an empty hand-over is nothing")
    func folds() async throws {
        let mailbox = TenantMailbox()
        let takes = Takes()
        mailbox.post("a b")
        mailbox.post("b c")
        mailbox.post("")
        let consumer = Task { await mailbox.deliver { takes.note($0) } }
        try await takes.wait(for: 1)
        mailbox.post("d")
        try await takes.wait(for: 2)
        consumer.cancel()
        await consumer.value
        #expect(takes.all.map(\.tenants) == [["a", "b", "c"], ["d"]])
    }

    @Test("with settling, a take waits that long after the hand-over, and what comes meanwhile joins it")
    func settles() async throws {
        let settling = Duration.milliseconds(200)
        let mailbox = TenantMailbox()
        let takes = Takes()
        let consumer = Task { await mailbox.deliver(settling: settling) { takes.note($0) } }
        let posted = ContinuousClock.now
        mailbox.post("a")
        try await Task.sleep(for: .milliseconds(50))
        mailbox.post("b a")
        try await takes.wait(for: 1)
        consumer.cancel()
        await consumer.value
        #expect(takes.all[0].tenants == ["a", "b"])
        #expect(takes.all[0].at - posted >= settling)
    }
}
