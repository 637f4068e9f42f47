import Foundation
import Postgres
import Testing

@Suite("Timestamp text")
struct TimestampDecodingTests {
    @Test("PostgreSQL's timestamptz text decodes, offsets included")
    func decodes() throws {
        #expect(
            try Date.decode(postgresText: "2026-11-24 01:02:03.5+00") == Date(timeIntervalSince1970: 1_795_482_123.5))
        #expect(
            try Date.decode(postgresText: "2026-11-24 03:02:03+02") == Date(timeIntervalSince1970: 1_795_482_123))
        #expect(
            try Date.decode(postgresText: "2026-11-23 19:32:03-05:30") == Date(timeIntervalSince1970: 1_795_482_123))
        // Years past 9999 have more digits (a tier once stored until 99999-01-01 made the account unreadable).
        #expect(
            try Date.decode(postgresText: "99999-01-01 00:00:00+00")
                == Date(timeIntervalSince1970: 3_093_496_444_800))
        #expect(throws: (any Error).self) { try Date.decode(postgresText: "999-01-01 00:00:00+00") }
        // Six digits, past what an Int64 of microseconds holds: a date, not a trap (found by the rows fuzz target).
        #expect(try Date.decode(postgresText: "999999-12-31 23:59:59+00").timeIntervalSince1970 > 3e13)
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

    @Test("a date's parameter text is its UTC calendar fields with microseconds, and decodes back within one")
    func encodes() throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        var generator = SystemRandomNumberGenerator()
        // 1700-01-01 to 2199-12-31 (Foundation's Gregorian calendar turns Julian before 1582).
        let range: ClosedRange<Int64> = -8_520_336_000_000_000...7_258_118_399_999_999
        let fixed: [Int64] = [0, -1, 1, 999_999, 1_795_482_123_720_368, -2_208_988_800_500_000, range.upperBound]
        for drawn in fixed + (0..<2000).map({ _ in Int64.random(in: range, using: &generator) }) {
            // A `Date` is a Double: the microseconds it holds are those it rounds to.
            let date = Date(timeIntervalSince1970: Double(drawn) / 1_000_000)
            let micros = Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
            let text = try #require(date.postgresText)
            let seconds = Date(timeIntervalSince1970: Double(micros.floorDivided(by: 1_000_000)))
            let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: seconds)
            let fraction = micros - micros.floorDivided(by: 1_000_000) * 1_000_000
            func padded(_ value: Int, _ width: Int) -> String {
                String(repeating: "0", count: max(0, width - String(value).count)) + String(value)
            }
            let expected =
                "\(padded(c.year!, 4))-\(padded(c.month!, 2))-\(padded(c.day!, 2)) "
                + "\(padded(c.hour!, 2)):\(padded(c.minute!, 2)):\(padded(c.second!, 2)).\(padded(Int(fraction), 6))+00"
            #expect(text == expected, "\(micros)")
            let back = try Date.decode(postgresText: text)
            #expect(abs(back.timeIntervalSince(date)) < 0.000_001, "\(text)")
        }
    }
}

extension Int64 {
    fileprivate func floorDivided(by divisor: Int64) -> Int64 {
        let (quotient, remainder) = quotientAndRemainder(dividingBy: divisor)
        return remainder < 0 ? quotient - 1 : quotient
    }
}
