import Foundation

extension Decimal {
    /// The same text as `description` (`8`, `8.5`, `-0.25`), from a table for the values a set's
    /// RPE and most small numbers take. Foundation writes a decimal by dividing its 128-bit
    /// mantissa digit by digit (about 0.5 µs); a logged workout writes each set's RPE twice, for
    /// its retry fingerprint and as a SQL parameter. Other values go to `description`.
    public var plainText: String {
        if exponent >= -1, exponent <= 0, let common = commonDecimals[self] { return common.text }
        return description
    }

    /// The nearest `Double`, for the wire and for estimates: from the same table, else read from
    /// the decimal's text, which is correctly rounded (`NSDecimalNumber`'s `doubleValue` gave
    /// `0.06999999999999999` for 0.07, at about 1 µs a value).
    public var doubleValue: Double {
        if exponent >= -1, exponent <= 0, let common = commonDecimals[self] { return common.double }
        return Double(description) ?? .nan
    }
}

/// 0 to 100 in steps of 0.5 (RPEs are 1–10 in halves), both signs: their texts and nearest
/// `Double`s.
private let commonDecimals: [Decimal: (text: String, double: Double)] = {
    var table: [Decimal: (text: String, double: Double)] = [:]
    for halves in 0...200 {
        let value =
            halves % 2 == 0
            ? Decimal(halves / 2) : Decimal(sign: .plus, exponent: -1, significand: Decimal(halves * 5))
        for signed in [value, -value] {
            table[signed] = (signed.description, Double(signed.description)!)
        }
    }
    return table
}()
