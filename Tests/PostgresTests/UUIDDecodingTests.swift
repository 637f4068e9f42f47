import Foundation
import Postgres
import Testing

@Suite("uuid text decoding")
struct UUIDDecodingTests {
    @Test("decodes what Foundation decodes, in either case")
    func matchesFoundation() throws {
        for _ in 0..<1000 {
            let uuid = UUID()
            #expect(try UUID.decode(postgresText: uuid.uuidString) == uuid)
            #expect(try UUID.decode(postgresText: uuid.uuidString.lowercased()) == uuid)
        }
        #expect(
            try UUID.decode(postgresText: "00000000-0000-0000-0000-000000000000")
                == UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
        #expect(
            try UUID.decode(postgresText: "ffffffff-FFFF-ffff-FFFF-ffffffffffff")
                == UUID(uuidString: "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF"))
    }

    @Test("a parameter is Foundation's text in lower case, and reads back as the same id")
    func encodesAsFoundationDoes() throws {
        var ids = (0..<1000).map { _ in UUID() }
        ids.append(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
        ids.append(UUID(uuidString: "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF")!)
        for id in ids {
            #expect(id.postgresText == id.uuidString.lowercased())
            #expect(try UUID.decode(postgresText: id.postgresText!) == id)
        }
    }

    @Test(
        "anything else is not a UUID",
        arguments: [
            "", "6f2b1d0e3c4a4b5e9f60718293a4b5c6", "6f2b1d0e-3c4a-4b5e-9f60-718293a4b5c",
            "6f2b1d0e-3c4a-4b5e-9f60-718293a4b5c67", "6f2b1d0e-3c4a-4b5e-9f60_718293a4b5c6",
            "6f2b1d0e-3c4a-4b5e-9f6g-718293a4b5c6", "{6f2b1d0e-3c4a-4b5e-9f60-718293a4b5c}",
            "6f2b1d0e-3c4a-4b5e-9f60-718293a4b5c√",
        ])
    func rejects(text: String) {
        #expect(UUID(uuidString: text) == nil)
        #expect(throws: PostgresDecodingFailure.self) { try UUID.decode(postgresText: text) }
    }
}
