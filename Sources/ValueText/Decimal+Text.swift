import Foundation

extension Decimal {
    /// The same text as `description` (`8`, `8.5`, `-0.25`), from a table for the values a set's
    /// RPE and most small numbers take. Foundation writes a decimal by dividing its 128-bit
    /// mantissa digit by digit (about 0.5 µs); a logged workout writes each set's RPE twice, for
    /// its retry fingerprint and as a SQL parameter. Other values go to `description`.
    public var plainText: String {
        if exponent >= -1, exponent <= 0, let text = commonDecimalTexts[self] { return text }
        return description
    }
}

/// The texts of 0 to 100 in steps of 0.5 (RPEs are 1–10 in halves), both signs.
private let commonDecimalTexts: [Decimal: String] = {
    var texts: [Decimal: String] = [:]
    for halves in 0...200 {
        let value =
            halves % 2 == 0
            ? Decimal(halves / 2) : Decimal(sign: .plus, exponent: -1, significand: Decimal(halves * 5))
        texts[value] = value.description
        texts[-value] = (-value).description
    }
    return texts
}()
