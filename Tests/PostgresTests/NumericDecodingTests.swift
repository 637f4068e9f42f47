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

    @Test("integers read from their bytes exactly as Swift reads their text, at both ends and beyond")
    func integers() throws {
        var texts = [
            "0", "-0", "+7", "42", "-42", "", "-", "+", " 1", "1 ", "1_000", "0x10", "1e3", "١٢", "--1", "007",
            "2147483647", "2147483648", "-2147483648", "-2147483649",
            "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
            "99999999999999999999999",
        ]
        var generator = SystemRandomNumberGenerator()
        texts += (0..<500).map { _ in String(Int64.random(in: .min ... .max, using: &generator)) }
        for text in texts {
            #expect((try? Int64.decode(postgresText: text)) == Int64(text), "\(text)")
            #expect((try? Int32.decode(postgresText: text)) == Int32(text), "\(text)")
            #expect((try? Int.decode(postgresText: text)) == Int(text), "\(text)")
        }
    }
}
