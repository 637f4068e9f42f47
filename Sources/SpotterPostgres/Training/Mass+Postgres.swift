import Postgres
import SpotterCore

/// A `numeric` column of kilograms, read and written as exact micrograms without `Decimal`.
extension Mass: PostgresEncodable, PostgresDecodable {
    public var postgresText: String? { kilogramText }

    public static func decode(postgresText text: String) throws -> Mass {
        var micrograms: Int64 = 0
        var negative = false
        var fractionDigits = -1
        for (offset, byte) in text.utf8.enumerated() {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                guard fractionDigits < 6 else { continue }  // beyond the stored scale: ignored
                let (shifted, overflow) = micrograms.multipliedReportingOverflow(by: 10)
                guard !overflow else { throw PostgresDecodingFailure("mass out of range") }
                micrograms = shifted + Int64(byte - UInt8(ascii: "0"))
                if fractionDigits >= 0 { fractionDigits += 1 }
            case UInt8(ascii: "-") where offset == 0:
                negative = true
            case UInt8(ascii: ".") where fractionDigits < 0:
                fractionDigits = 0
            default:
                throw PostgresDecodingFailure("not a numeric")
            }
        }
        guard !text.isEmpty else { throw PostgresDecodingFailure("not a numeric") }
        for _ in max(0, fractionDigits)..<6 {
            let (shifted, overflow) = micrograms.multipliedReportingOverflow(by: 10)
            guard !overflow else { throw PostgresDecodingFailure("mass out of range") }
            micrograms = shifted
        }
        return Mass(micrograms: negative ? -micrograms : micrograms)
    }
}
