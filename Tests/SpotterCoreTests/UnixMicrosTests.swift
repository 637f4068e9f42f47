import Foundation
import SpotterCore
import Testing

@Suite("Microsecond timestamps from clients")
struct UnixMicrosTests {
    @Test("a request may name the years 1 to 9999; beyond is invalidArgument naming the field")
    func range() throws {
        #expect(try UnixMicros.date(0, field: "from") == Date(timeIntervalSince1970: 0))
        _ = try UnixMicros.date(UnixMicros.valid.lowerBound, field: "from")
        _ = try UnixMicros.date(UnixMicros.valid.upperBound, field: "from")
        for micros in [Int64.max, .min, UnixMicros.valid.upperBound + 1, UnixMicros.valid.lowerBound - 1] {
            let error = #expect(throws: SpotterError.self) { try UnixMicros.date(micros, field: "to") }
            guard case .invalidArgument(let violations) = error else {
                Issue.record("not invalidArgument: \(String(describing: error))")
                continue
            }
            #expect(violations.map(\.field) == ["to"])
        }
    }

    @Test("any date converts to microseconds without trapping")
    func neverTraps() {
        #expect(UnixMicros.of(Date(timeIntervalSince1970: 1.5)) == 1_500_000)
        #expect(UnixMicros.of(Date(timeIntervalSince1970: 1e300)) == .max)
        #expect(UnixMicros.of(Date(timeIntervalSince1970: -1e300)) == .min)
        #expect(UnixMicros.of(Date(timeIntervalSince1970: .nan)) == .max)
    }

    @Test("a forged page token with a time beyond the years 1 to 9999 is refused")
    func forgedPageToken() {
        for text in ["9223372036854775807", "-9223372036854775808", "253402300800000000"] {
            #expect(throws: SpotterError.invalid("page.page_token", "is not a token this call returned")) {
                try PageToken.date(micros: text)
            }
        }
    }
}
