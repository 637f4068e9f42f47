import Foundation
import SpotterCore
import Testing

@Suite("Identifiers")
struct IdentifierTests {
    @Test("ids are written in Foundation's form, lowercase, and read back")
    func lowercaseForm() throws {
        for _ in 0..<1000 {
            let id = TenantID.random()
            #expect(id.description == id.rawValue.uuidString.lowercased())
            #expect(TenantID(id.description) == id)
        }
        let zero = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
        #expect(zero.lowercasedString == "00000000-0000-0000-0000-000000000000")
        let max = UUID(uuid: (255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255))
        #expect(max.lowercasedString == "ffffffff-ffff-ffff-ffff-ffffffffffff")
    }
}
