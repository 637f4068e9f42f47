import Foundation
import SpotterCore
import Testing

@Suite("Training rules: exact masses")
struct TrainingRulesMassTests {
    /// `cents` hundredths written as text with exactly 2 decimals ("1234.05").
    static func text(cents: Int) -> String {
        let fraction = cents % 100
        return "\(cents / 100)." + (fraction < 10 ? "0\(fraction)" : "\(fraction)")
    }

    @Test("every pound value with 2 decimals from 0 to 1000 survives the trip through kilograms exactly")
    func poundsRoundTripDense() {
        var failures: [String] = []
        for cents in 0...100_000 {
            let text = Self.text(cents: cents)
            let value = decimal(text)
            if Mass(value, .lb).value(in: .lb) != value { failures.append(text) }
            if Mass(value, .kg).value(in: .kg) != value { failures.append(text + " kg") }
        }
        #expect(failures.isEmpty, "\(failures.prefix(20))")
    }

    @Test("pseudo-random pound and kilogram values with 2 decimals up to 100000 survive the round trip exactly")
    func roundTripRandom() {
        // A fixed linear congruential sequence: the same values on every run.
        var state: UInt64 = 0x5EED_1234_ABCD_0001
        var failures: [String] = []
        for _ in 0..<5000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let cents = Int((state >> 33) % 10_000_000)
            let text = Self.text(cents: cents)
            let value = decimal(text)
            if Mass(value, .lb).value(in: .lb) != value { failures.append(text + " lb") }
            if Mass(value, .kg).value(in: .kg) != value { failures.append(text + " kg") }
            if Mass(value, .lb).kilograms.fractionDigits > 6 { failures.append(text + " lb scale") }
        }
        #expect(failures.isEmpty, "\(failures.prefix(20))")
    }

    @Test("225 lb is 102.058283 kg and 100 kg shows as 220.46 lb")
    func knownConversions() {
        #expect(Mass(225, .lb).kilograms == decimal("102.058283"))
        #expect(decimal("102.05828325").rounded(scale: 6) == decimal("102.058283"))
        #expect(Mass(225, .lb).value(in: .lb) == 225)
        #expect(Mass(225, .lb).value(in: .kg) == decimal("102.06"))
        #expect(Mass(100, .kg).value(in: .lb) == decimal("220.46"))
        #expect(Mass(100, .kg).kilograms == 100)
        #expect(Mass.kilogramsPerPound == decimal("0.45359237"))
    }

    @Test("rounding is half away from zero")
    func roundingHalfAwayFromZero() {
        #expect(decimal("2.345").rounded(scale: 2) == decimal("2.35"))
        #expect(decimal("-2.345").rounded(scale: 2) == decimal("-2.35"))
        #expect(decimal("2.344").rounded(scale: 2) == decimal("2.34"))
    }

    @Test("a Double becomes the decimal it was written as, and non-finite values have none")
    func decimalExactly() {
        #expect(Decimal(exactly: 102.3) == decimal("102.3"))
        #expect(Decimal(exactly: 0.1) == decimal("0.1"))
        #expect(Decimal(exactly: 225.0) == 225)
        #expect(Decimal(exactly: Double.nan) == nil)
        #expect(Decimal(exactly: Double.infinity) == nil)
        #expect(Decimal(exactly: -Double.infinity) == nil)
    }

    @Test("fractionDigits counts the decimals needed to write a value")
    func fractionDigits() {
        #expect(decimal("102.25").fractionDigits == 2)
        #expect(decimal("102.255").fractionDigits == 3)
        #expect(decimal("102").fractionDigits == 0)
        #expect(decimal("102.5").fractionDigits == 1)
        #expect(Decimal(exactly: 102.3)!.fractionDigits == 1)
    }

    @Test("masses add, multiply by reps and compare by kilograms")
    func arithmetic() {
        #expect(kg(100) + kg(decimal("2.5")) == kg(decimal("102.5")))
        #expect(kg(decimal("102.5")) * 5 == kg(decimal("512.5")))
        #expect(kg(100) < kg(decimal("100.000001")))
    }
}
