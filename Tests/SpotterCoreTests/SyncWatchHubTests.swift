import Foundation
import SpotterCore
import Testing

@Suite("Sync: the Watch hub")
struct SyncWatchHubTests {
    let ada = TenantID(rawValue: UUID())
    let bob = TenantID(rawValue: UUID())

    /// The events left in `stream` once the hub has ended it.
    func remaining(_ iterator: inout AsyncStream<SyncWatchHub.Event>.Iterator) async -> [SyncWatchHub.Event] {
        var events: [SyncWatchHub.Event] = []
        while let event = await iterator.next() { events.append(event) }
        return events
    }

    @Test("a stream opened before notifications are live gets OPENED only once they are, and no change before it")
    func openedWaitsForLiveNotifications() async throws {
        let hub = SyncWatchHub()
        #expect(!hub.isLive)
        var early = try hub.subscribe(ada).makeAsyncIterator()
        hub.notify(ada)
        hub.notificationsResumed()
        #expect(hub.isLive)
        #expect(await early.next() == .opened)
        hub.notify(ada)
        #expect(await early.next() == .changed)
        hub.finishAll()
        #expect(await remaining(&early) == [])
    }

    @Test("after an interruption, open streams get RECONNECTED and streams opened meanwhile get OPENED")
    func interruption() async throws {
        let hub = SyncWatchHub()
        hub.notificationsResumed()
        var before = try hub.subscribe(ada).makeAsyncIterator()
        #expect(await before.next() == .opened)

        hub.notificationsInterrupted()
        #expect(!hub.isLive)
        var during = try hub.subscribe(ada).makeAsyncIterator()
        hub.notificationsResumed()
        #expect(await before.next() == .reconnected)
        #expect(await during.next() == .opened)
        hub.finishAll()
        #expect(await remaining(&before) == [])
        #expect(await remaining(&during) == [])
    }

    @Test("a change reaches only its tenant's streams, and a slow stream keeps only the newest event")
    func changesByTenant() async throws {
        let hub = SyncWatchHub()
        hub.notificationsResumed()
        var adas = try hub.subscribe(ada).makeAsyncIterator()
        var bobs = try hub.subscribe(bob).makeAsyncIterator()
        #expect(await bobs.next() == .opened)
        hub.notify(ada)
        hub.notify(ada)
        hub.finishAll()
        #expect(await remaining(&adas) == [.changed])
        #expect(await remaining(&bobs) == [])
    }

    @Test("streams are limited per tenant; a stream whose consumer went away frees its place")
    func limit() async throws {
        let hub = SyncWatchHub(limitPerTenant: 2)
        var first: AsyncStream<SyncWatchHub.Event>? = try hub.subscribe(ada)
        let second = try hub.subscribe(ada)
        let bobs = try hub.subscribe(bob)
        #expect(hub.streamCount(ada) == 2)
        #expect(hub.streamCount() == 3)
        let refused = #expect(throws: SpotterError.self) { try hub.subscribe(ada) }
        guard case .tooManyRequests(let message, _) = refused else {
            Issue.record("expected tooManyRequests, got \(String(describing: refused))")
            return
        }
        #expect(message.contains("at most 2 streams"))

        first = nil  // The consumer is gone: the stream ends and leaves the hub.
        #expect(hub.streamCount(ada) == 1)
        #expect(throws: Never.self) { _ = try hub.subscribe(ada) }
        withExtendedLifetime((first, second, bobs)) {}
    }
}
