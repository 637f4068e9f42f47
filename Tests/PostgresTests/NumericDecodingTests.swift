import Foundation
import Postgres
import Testing

@Suite("numeric text decoding")
struct NumericDecodingTests {
    @Test(
        "plain numerics read directly equal what Foundation parses",
        arguments: ["0", "-0.5", "102.058283", "2000.000000", "0.000001", "999999999999999999", "-12.30"]
    )
    func plain(text: String) throws {
        #expect(
            try Decimal.decode(postgresText: text) == Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")))
    }

    @Test("long numerics go through Foundation; garbage is refused")
    func fallback() throws {
        let long = "1234567890123456789012.5"
        #expect(try Decimal.decode(postgresText: long) == Decimal(string: long))
        #expect(throws: (any Error).self) { try Decimal.decode(postgresText: "twelve") }
        #expect(throws: (any Error).self) { try Decimal.decode(postgresText: "") }
    }
}
