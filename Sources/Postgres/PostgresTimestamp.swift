import Foundation

/// Converts between `Date` and `timestamptz` text (ISO date style) with microsecond precision,
/// without a `DateFormatter` (slow, and locale-dependent).
enum PostgresTimestamp {
    /// Formats as `YYYY-MM-DD HH:MM:SS.ffffff+00`.
    static func format(_ date: Date) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(29)
        append(date, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `format(date)`'s UTF-8 to `bytes`, digit by digit (no `String` per field).
    static func append(_ date: Date, to bytes: inout [UInt8]) {
        // Never traps: a date beyond Int64's microseconds (refused where requests come in) is clamped.
        let exact = (date.timeIntervalSince1970 * 1_000_000).rounded()
        let micros = Int64(exactly: exact) ?? (exact < 0 ? .min : .max)
        var days = micros / 86_400_000_000
        var dayMicros = micros % 86_400_000_000
        if dayMicros < 0 {
            dayMicros += 86_400_000_000
            days -= 1
        }
        let (year, month, day) = civil(fromDays: days)
        let seconds = dayMicros / 1_000_000
        func field(_ value: Int64, _ width: Int, then separator: Unicode.Scalar) {
            appendPadded(value, width, to: &bytes)
            bytes.append(UInt8(ascii: separator))
        }
        field(year, 4, then: "-")
        field(month, 2, then: "-")
        field(day, 2, then: " ")
        field(seconds / 3600, 2, then: ":")
        field(seconds / 60 % 60, 2, then: ":")
        field(seconds % 60, 2, then: ".")
        field(dayMicros % 1_000_000, 6, then: "+")
        bytes.append(UInt8(ascii: "0"))
        bytes.append(UInt8(ascii: "0"))
    }

    /// `value` in decimal, with zeros in front up to `width` digits. Only a year can be negative (a
    /// date before year 1, refused where requests come in): it is written as `String(value)` padded.
    private static func appendPadded(_ value: Int64, _ width: Int, to bytes: inout [UInt8]) {
        guard value >= 0 else {
            let digits = String(value)
            bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: max(0, width - digits.utf8.count)))
            bytes.append(contentsOf: digits.utf8)
            return
        }
        var divisor: Int64 = 1
        var count = 1
        while count < width || value / divisor >= 10 {
            divisor *= 10
            count += 1
        }
        var rest = value
        while divisor > 0 {
            bytes.append(UInt8(truncatingIfNeeded: 48 + rest / divisor))
            rest %= divisor
            divisor /= 10
        }
    }

    /// Parses `YYYY-MM-DD HH:MM:SS[.ffffff]±HH[:MM[:SS]]`.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws -> Date {
        var index = 0
        func number(_ count: Int) throws -> Int64 {
            guard index + count <= bytes.count else { throw PostgresDecodingFailure("truncated timestamp") }
            var value: Int64 = 0
            for byte in bytes[index..<index + count] {
                guard byte >= 48, byte <= 57 else { throw PostgresDecodingFailure("not a timestamp") }
                value = value * 10 + Int64(byte - 48)
            }
            index += count
            return value
        }
        // A `Unicode.Scalar`, not a `Character`: a Character's `asciiValue` checks grapheme
        // boundaries, a visible cost when a progress report reads 780 times.
        func expect(_ separator: Unicode.Scalar) throws {
            guard index < bytes.count, bytes[index] == UInt8(ascii: separator) else {
                throw PostgresDecodingFailure("not a timestamp")
            }
            index += 1
        }
        // PostgreSQL writes years past 9999 with more digits (a timestamptz reaches 294276).
        var year: Int64 = 0
        var yearDigits = 0
        while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57, yearDigits < 6 {
            year = year * 10 + Int64(bytes[index] - 48)
            yearDigits += 1
            index += 1
        }
        guard yearDigits >= 4 else { throw PostgresDecodingFailure("not a timestamp") }
        try expect("-")
        let month = try number(2)
        try expect("-")
        let day = try number(2)
        try expect(" ")
        let hour = try number(2)
        try expect(":")
        let minute = try number(2)
        try expect(":")
        let second = try number(2)
        var micros: Int64 = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            var digits = 0
            while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 {
                if digits < 6 { micros = micros * 10 + Int64(bytes[index] - 48) }
                digits += 1
                index += 1
            }
            // More than six digits (PostgreSQL never sends them) are cut, not a trap: the range
            // `digits..<6` must not be formed when digits > 6.
            if digits < 6 {
                for _ in digits..<6 { micros *= 10 }
            }
        }
        var offsetSeconds: Int64 = 0
        if index < bytes.count {
            guard bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") else {
                throw PostgresDecodingFailure("not a timestamp")
            }
            let sign: Int64 = bytes[index] == UInt8(ascii: "-") ? -1 : 1
            index += 1
            offsetSeconds = try number(2) * 3600
            if index < bytes.count {
                try expect(":")
                offsetSeconds += try number(2) * 60
            }
            if index < bytes.count {
                try expect(":")
                offsetSeconds += try number(2)
            }
            offsetSeconds *= sign
        }
        let days = daysFromCivil(year: year, month: month, day: day)
        // In seconds first: past about year 287,000 the microseconds would not fit an Int64.
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
        guard abs(seconds) < 9_000_000_000_000 else {
            return Date(timeIntervalSince1970: Double(seconds) + Double(micros) / 1_000_000)
        }
        return Date(timeIntervalSince1970: Double(seconds * 1_000_000 + micros) / 1_000_000)
    }

    // Howard Hinnant's days-from-civil algorithms (proleptic Gregorian calendar).
    static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
