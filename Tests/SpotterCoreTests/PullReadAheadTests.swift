import Foundation
import Synchronization
import Testing

@testable import SpotterCore

@Suite("Sync: reading pull pages ahead")
struct PullReadAheadTests {
    let ada = Principal(tenantID: .random(), accountID: .random())

    func key(_ seq: Int64, limit: Int = 200, device: DeviceID? = nil) -> PullReadAhead.Key {
        PullReadAhead.Key(ada, SyncCursor(seq: seq), limit: limit, device: device)
    }

    func page(_ seq: Int64) -> PullPage {
        PullPage(changes: [], cursor: SyncCursor(seq: seq), hasMore: true, lastMutationID: nil)
    }

    @Test("a read is taken once, only by the same cursor, page size, device and account")
    func takenOnce() async {
        let reads = PullReadAhead()
        reads.start(key(10)) { page(20) }
        #expect(await reads.take(key(10, limit: 100)) == nil)
        #expect(await reads.take(key(10, device: .random())) == nil)
        #expect(
            await reads.take(
                PullReadAhead.Key(
                    Principal(tenantID: .random(), accountID: .random()), SyncCursor(seq: 10), limit: 200, device: nil))
                == nil)
        #expect(await reads.take(key(10)) == page(20))
        #expect(await reads.take(key(10)) == nil)
        #expect(reads.takenCount == 1)
    }

    @Test("a failed read, or one that found the cursor purged, is not served")
    func failures() async {
        struct Lost: Error {}
        let reads = PullReadAhead()
        reads.start(key(1)) { throw Lost() }
        reads.start(key(2)) { nil }
        #expect(await reads.take(key(1)) == nil)
        #expect(await reads.take(key(2)) == nil)
        #expect(reads.takenCount == 0)
    }

    @Test("at most `capacity` reads are kept, the oldest dropped first; old reads expire")
    func bounded() async throws {
        // A long lifetime for the capacity part: on a loaded machine 200 ms can pass between two lines.
        let reads = PullReadAhead(lifetime: .seconds(60), capacity: 2)
        reads.start(key(1)) { page(2) }
        try await Task.sleep(for: .milliseconds(5))
        reads.start(key(2)) { page(3) }
        try await Task.sleep(for: .milliseconds(5))
        reads.start(key(3)) { page(4) }
        #expect(await reads.take(key(1)) == nil)
        #expect(await reads.take(key(2)) == page(3))

        let expiring = PullReadAhead(lifetime: .milliseconds(200), capacity: 2)
        expiring.start(key(3)) { page(4) }
        try await Task.sleep(for: .milliseconds(300))
        #expect(await expiring.take(key(3)) == nil)
    }
}
