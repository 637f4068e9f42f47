import Foundation
import Testing

@testable import SpotterCore

@Suite("Decimals written and read without Foundation's text round trips")
struct DecimalTextTests {
    @Test("plainText is description and doubleValue the Double it reads as, from the table and beyond it")
    func plainTextIsDescription() throws {
        var values: [Decimal] = []
        for tenths in -1_100...1_100 { values.append(Decimal(sign: .plus, exponent: -1, significand: Decimal(tenths))) }
        for hundredths in stride(from: -20_000, through: 20_000, by: 7) {
            values.append(Decimal(sign: .plus, exponent: -2, significand: Decimal(hundredths)))
        }
        for text in ["1e30", "-1e-30", "123456789.123456789", "0.000", "-0", "65535", "65536", "100.5", "1000"] {
            values.append(try #require(Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))))
        }
        for value in values {
            #expect(value.plainText == value.description, "\(value)")
            #expect(value.doubleValue == Double(value.description), "\(value)")
        }
        #expect(Decimal.nan.plainText == Decimal.nan.description)
        #expect(Decimal.nan.doubleValue.isNaN)
    }

    @Test("a valid RPE is the decimal its text reads as, in value and in text")
    func rpeIsExact() {
        for halves in 2...20 {
            let rpe = Double(halves) / 2
            var validator = Validator()
            let decimal = validatedRPE(rpe, "rpe", into: &validator)
            #expect(validator.violations.isEmpty)
            #expect(decimal == Decimal(exactly: rpe), "\(rpe)")
            #expect(decimal?.description == Decimal(exactly: rpe)?.description, "\(rpe)")
        }
        for invalid in [0.5, 10.5, 8.25, -1, .nan, .infinity] {
            var validator = Validator()
            #expect(validatedRPE(invalid, "rpe", into: &validator) == nil)
            #expect(validator.violations.map(\.field) == ["rpe"], "\(invalid)")
        }
    }
}
