import Foundation

/// Instants as whole microseconds since 1970: the API's `Timestamp`, page tokens, idempotency keys.
/// Client numbers come in through `date(_:field:)`, which checks the range before anything converts
/// them; `of(_:)` never traps, whatever the date.
public enum UnixMicros {
    /// 0001-01-01T00:00:00Z through 9999-12-31T23:59:59.999999Z: the instants a request may name.
    public static let valid: ClosedRange<Int64> = -62_135_596_800_000_000...253_402_300_799_999_999

    /// The instant `micros` names; `invalidArgument` naming `field` outside `valid`.
    public static func date(_ micros: Int64, field: String) throws(SpotterError) -> Date {
        guard valid.contains(micros) else {
            throw .invalid(
                field, "must be between the years 1 and 9999 (unix_micros \(valid.lowerBound)…\(valid.upperBound))")
        }
        return Date(timeIntervalSince1970: TimeInterval(micros) / 1_000_000)
    }

    /// `date` rounded to whole microseconds, clamped to Int64's range.
    public static func of(_ date: Date) -> Int64 {
        let micros = (date.timeIntervalSince1970 * 1_000_000).rounded()
        return Int64(exactly: micros) ?? (micros < 0 ? .min : .max)
    }
}
