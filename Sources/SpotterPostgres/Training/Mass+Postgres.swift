import Postgres
import SpotterCore

/// A `numeric` column of kilograms, read and written as exact micrograms without `Decimal`.
extension Mass: PostgresEncodable, PostgresUTF8Decodable {
    public var postgresText: String? { kilogramText }

    public func appendPostgresText(to bytes: inout [UInt8]) -> Bool {
        appendKilogramText(to: &bytes)
        return true
    }

    /// Digits beyond the sixth decimal place are dropped (the columns hold six).
    public static func decode(postgresUTF8 text: UnsafeBufferPointer<UInt8>) throws -> Mass {
        guard let fixed = PostgresFixedPoint(utf8: text) else { throw PostgresDecodingFailure("not a plain numeric") }
        var micrograms = fixed.value
        for _ in fixed.scale..<max(fixed.scale, 6) {
            let (shifted, overflow) = micrograms.multipliedReportingOverflow(by: 10)
            guard !overflow else { throw PostgresDecodingFailure("mass out of range") }
            micrograms = shifted
        }
        for _ in 6..<max(fixed.scale, 6) { micrograms /= 10 }
        return Mass(micrograms: micrograms)
    }
}
