import Foundation

/// A weight, held exactly in kilograms as a decimal: the canonical unit everything is stored and
/// summed in. Pounds are converted once on the way in and once on the way out, so nothing drifts
/// through binary floating point.
public struct Mass: Sendable, Hashable, Comparable, Codable {
    /// The international pound, exactly.
    public static let kilogramsPerPound = Decimal(string: "0.45359237")!
    /// Stored precision: a pound value with 2 decimals converts and back without loss at 6 places.
    static let storedScale: Int16 = 6

    public var kilograms: Decimal

    public init(kilograms: Decimal) {
        self.kilograms = kilograms
    }

    public static let zero = Mass(kilograms: 0)

    /// A value in `unit`, converted to kilograms at the stored precision.
    public init(_ value: Decimal, _ unit: WeightUnit) {
        switch unit {
        case .kg: kilograms = value.rounded(scale: Self.storedScale)
        case .lb: kilograms = (value * Self.kilogramsPerPound).rounded(scale: Self.storedScale)
        }
    }

    /// The value in `unit`, rounded to 2 decimal places (half away from zero).
    public func value(in unit: WeightUnit) -> Decimal {
        switch unit {
        case .kg: kilograms.rounded(scale: 2)
        case .lb: (kilograms / Self.kilogramsPerPound).rounded(scale: 2)
        }
    }

    public static func + (lhs: Mass, rhs: Mass) -> Mass { Mass(kilograms: lhs.kilograms + rhs.kilograms) }
    public static func * (lhs: Mass, reps: Int) -> Mass { Mass(kilograms: lhs.kilograms * Decimal(reps)) }
    public static func < (lhs: Mass, rhs: Mass) -> Bool { lhs.kilograms < rhs.kilograms }
}

extension Decimal {
    /// Rounded to `scale` fractional digits, halves away from zero.
    public func rounded(scale: Int16) -> Decimal {
        var value = self
        var result = Decimal()
        NSDecimalRound(&result, &value, Int(scale), .plain)
        return result
    }

    /// The nearest `Double`, for the wire.
    public var doubleValue: Double { NSDecimalNumber(decimal: self).doubleValue }

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
