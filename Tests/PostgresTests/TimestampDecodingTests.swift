import Foundation
import Postgres
import Testing

@Suite("Timestamp text decoding")
struct TimestampDecodingTests {
    @Test("PostgreSQL's timestamptz text decodes, offsets included")
    func decodes() throws {
        #expect(
            try Date.decode(postgresText: "2026-11-24 01:02:03.5+00") == Date(timeIntervalSince1970: 1_795_482_123.5))
        #expect(
            try Date.decode(postgresText: "2026-11-24 03:02:03+02") == Date(timeIntervalSince1970: 1_795_482_123))
        #expect(
            try Date.decode(postgresText: "2026-11-23 19:32:03-05:30") == Date(timeIntervalSince1970: 1_795_482_123))
    }

    /// Found by the `rows` fuzz target (Tests/Fuzz/corpus/rows/crash-seven-fraction-digits): seven
    /// fraction digits formed the range 7..<6 and trapped.
    @Test("more than six fraction digits and a stray byte where the offset goes are errors, not traps")
    func hostileText() throws {
        #expect(
            try Date.decode(postgresText: "2026-11-24 01:02:03.7203685+00")
                == Date(timeIntervalSince1970: 1_795_482_123.720368))
        #expect(throws: (any Error).self) { try Date.decode(postgresText: "2026-11-24 01:02:03.7203685\u{d5}0") }
        #expect(throws: (any Error).self) { try Date.decode(postgresText: "2026-11-24 01:02:03x00") }
    }
}
