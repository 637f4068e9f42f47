import Foundation
import Postgres
import SpotterCore
import SpotterPostgres
import SpotterTestSupport
import Testing

@Suite("Watch notifications are sent after the commit, by the notifier's loop")
struct WatchNotifierTests {
    struct Boom: Error {}

    @Test("each tenant a committed transaction noted is notified once; a rolled-back transaction notifies no one")
    func notifiesAfterCommit() async throws {
        try await TestDatabase.with { database in
            let listener = try await database.ownerConnection()
            try await listener.listen("spotter_sync")
            let spotter = SpotterDatabase(pool: database.appPool)
            let loop = Task { await spotter.notifier.run() }
            let (ada, bob, cy) = (TenantID(rawValue: UUID()), TenantID(rawValue: UUID()), TenantID(rawValue: UUID()))
            // As the feed triggers note the tenants whose feeds a transaction wrote.
            func note(_ tenants: String, _ connection: PostgresConnection) async throws {
                try await connection.query("SELECT set_config('spotter.changed_feeds', $1, true)", [tenants])
            }

            await #expect(throws: Boom.self) {
                try await spotter.withTenant(cy) { connection in
                    try await note(cy.text, connection)
                    throw Boom()
                }
            }
            try await spotter.withTenant(ada) { connection in
                try await note("\(ada.text) \(bob.text)", connection)
            }
            try await spotter.withTenant(ada) { _ in }  // noted nothing

            var payloads: [String] = []
            let deadline = ContinuousClock.now + .seconds(10)
            while payloads.count < 2, ContinuousClock.now < deadline {
                payloads += try await listener.notifications(timeout: .milliseconds(500)).map(\.payload)
            }
            payloads += try await listener.notifications(timeout: .milliseconds(500)).map(\.payload)
            #expect(payloads.sorted() == [ada.text, bob.text].sorted())
            loop.cancel()
            await loop.value
            await listener.close()
        }
    }
}

extension TenantID {
    /// As PostgreSQL writes a uuid as text (lower-case), and so as the feed triggers note it.
    fileprivate var text: String { rawValue.uuidString.lowercased() }
}
