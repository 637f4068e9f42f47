import Foundation

/// A weight, held exactly as a whole number of micrograms (kilograms with 6 decimal places): the
/// canonical unit everything is stored and summed in. Pounds are converted once on the way in and
/// once on the way out, so nothing drifts through binary floating point, and sums and comparisons
/// are integer arithmetic.
public struct Mass: Sendable, Hashable, Comparable, Codable {
    /// The international pound, exactly.
    public static let kilogramsPerPound = Decimal(string: "0.45359237")!
    /// Kilograms × 1,000,000.
    public var micrograms: Int64

    public init(micrograms: Int64) {
        self.micrograms = micrograms
    }

    /// `kilograms` rounded to 6 decimal places.
    public init(kilograms: Decimal) {
        let scaled = (kilograms * 1_000_000).rounded(scale: 0)
        micrograms = NSDecimalNumber(decimal: scaled).int64Value
    }

    public static let zero = Mass(micrograms: 0)
    /// The heaviest set weight accepted.
    public static let maximum = Mass(micrograms: 2_000_000_000)

    /// A value in `unit`, converted to kilograms at the stored precision. Callers keep `value`
    /// within a few tonnes (validation does).
    public init(_ value: Decimal, _ unit: WeightUnit) {
        switch unit {
        case .kg: self.init(kilograms: value)
        case .lb: self.init(kilograms: value * Self.kilogramsPerPound)
        }
    }

    /// Exact kilograms.
    public var kilograms: Decimal {
        Decimal(sign: micrograms < 0 ? .minus : .plus, exponent: -6, significand: Decimal(micrograms.magnitude))
    }

    /// Kilograms as a `Double`, for estimates.
    public var approximateKilograms: Double { Double(micrograms) / 1_000_000 }

    /// The value in `unit`, rounded to 2 decimal places (half away from zero).
    public func value(in unit: WeightUnit) -> Decimal {
        switch unit {
        case .kg: kilograms.rounded(scale: 2)
        case .lb: (kilograms / Self.kilogramsPerPound).rounded(scale: 2)
        }
    }

    /// Whether `sent` is this mass as the API shows it, in either unit (rounded to 2 decimals): what
    /// a client sends back when it saves what it read.
    public func isShown(as sent: Mass) -> Bool {
        WeightUnit.allCases.contains { Mass(value(in: $0), $0) == sent }
    }

    /// `value(in:)` as the `Double` nearest to it, for the wire: `58.78`, where going through
    /// `NSDecimalNumber` gave `58.779999999999994` (a quarter of all weights were a bit off), at
    /// 1.6 µs a weight. The same rounding in integer arithmetic, then one correctly rounded division.
    public func doubleValue(in unit: WeightUnit) -> Double {
        // Hundredths of the unit, before rounding: micrograms / 10,000 for kilograms, and
        // micrograms × 10,000 / 45,359,237 for pounds (1 lb = 0.45359237 kg exactly).
        let (numerator, denominator): ((high: UInt64, low: UInt64), UInt64) =
            switch unit {
            case .kg: ((0, micrograms.magnitude), 10_000)
            case .lb: (micrograms.magnitude.multipliedFullWidth(by: 10_000), 45_359_237)
            }
        var (hundredths, remainder) = denominator.dividingFullWidth(numerator)
        // Half away from zero, as `value(in:)` rounds.
        if remainder >= denominator - remainder { hundredths += 1 }
        let magnitude = Double(hundredths) / 100
        return micrograms < 0 ? -magnitude : magnitude
    }

    /// `123.456789`: the exact kilograms as decimal text.
    public var kilogramText: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16)
        appendKilogramText(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `kilogramText`'s UTF-8 to `bytes` (a statement's parameters are written so).
    public func appendKilogramText(to bytes: inout [UInt8]) {
        let magnitude = micrograms.magnitude
        if micrograms < 0 { bytes.append(UInt8(ascii: "-")) }
        bytes.append(contentsOf: String(magnitude / 1_000_000).utf8)
        bytes.append(UInt8(ascii: "."))
        var fraction = magnitude % 1_000_000
        var divisor: UInt64 = 100_000
        while divisor > 0 {
            bytes.append(UInt8(truncatingIfNeeded: 48 + fraction / divisor))
            fraction %= divisor
            divisor /= 10
        }
    }

    public static func + (lhs: Mass, rhs: Mass) -> Mass { Mass(micrograms: lhs.micrograms + rhs.micrograms) }
    public static func * (lhs: Mass, reps: Int) -> Mass { Mass(micrograms: lhs.micrograms * Int64(reps)) }
    public static func < (lhs: Mass, rhs: Mass) -> Bool { lhs.micrograms < rhs.micrograms }
}

extension Decimal {
    /// Rounded to `scale` fractional digits, halves away from zero.
    public func rounded(scale: Int16) -> Decimal {
        var value = self
        var result = Decimal()
        NSDecimalRound(&result, &value, Int(scale), .plain)
        return result
    }

    /// The decimal a `Double` was written as: its shortest round-trip text (`102.3`, not
    /// `102.299999…`), or `nil` when it is not finite.
    public init?(exactly double: Double) {
        guard double.isFinite else { return nil }
        self.init(string: "\(double)", locale: posixLocale)
    }

    /// The number of fractional digits needed to write it.
    public var fractionDigits: Int {
        var value = self
        var digits = 0
        while value != value.rounded(scale: 0), digits < 20 {
            value *= 10
            digits += 1
        }
        return digits
    }
}

private let posixLocale = Locale(identifier: "en_US_POSIX")
