import Foundation
import Testing

@testable import SpotterCore

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

    @Test(
        "a set's weight read in integers equals the Decimal reading: every hundredth to 100, sampled values to 10,000, and values with more decimals left to Decimal"
    )
    func hundredthsMatchDecimal() {
        /// What `WeightDraft.validated` computes without the integer path.
        func byDecimal(_ value: Double, _ unit: WeightUnit) -> Mass? {
            guard let exact = Decimal(exactly: value), exact >= 0, exact.fractionDigits <= 2, exact <= 10_000 else {
                return nil
            }
            return Mass(exact, unit)
        }
        var values = (0...10_000).map { Double($0) / 100 }
        var state: UInt64 = 0x5EED_0000_0000_0016
        for _ in 0..<20_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let cents = Int((state >> 33) % 1_000_001)
            values.append(Double(cents) / 100)
            // Not two decimals: a thousandth off, a third, a tiny step past the hundredth.
            values.append(Double(cents) / 100 + 0.001)
            values.append(Double(cents) / 300)
            values.append((Double(cents) / 100).nextUp)
        }
        values += [0, 10_000, 10_000.01, -0.01, -0, 0.1, 0.2, 0.3, 2.675, 1.005, 4409.24, 4409.25, .nan, .infinity]
        var failures: [String] = []
        for value in values {
            for unit in [WeightUnit.kg, .lb] {
                let fast = WeightDraft.hundredthsMass(value, unit)
                let slow = byDecimal(value, unit)
                // The integer path may leave a value to Decimal, never answer it differently.
                if let fast, fast != slow {
                    failures.append("\(value) \(unit): \(fast) vs \(String(describing: slow))")
                }
                if fast == nil, slow != nil, value.isFinite, (value * 100).rounded() / 100 == value {
                    failures.append("\(value) \(unit): left to Decimal")
                }
            }
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

    @Test("the kilogram text (a numeric parameter) is exact, with six decimals and the sign")
    func kilogramText() {
        #expect(Mass(micrograms: 0).kilogramText == "0.000000")
        #expect(Mass(micrograms: 1).kilogramText == "0.000001")
        #expect(Mass(micrograms: -1).kilogramText == "-0.000001")
        #expect(Mass(micrograms: 102_058_283).kilogramText == "102.058283")
        #expect(Mass(micrograms: 100_000_000).kilogramText == "100.000000")
        #expect(Mass(micrograms: -1_970_819_754).kilogramText == "-1970.819754")
        #expect(Mass(micrograms: .min).kilogramText == "-9223372036854.775808")
        #expect(Mass(micrograms: .max).kilogramText == "9223372036854.775807")
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<5_000 {
            let mass = Mass(micrograms: Int64.random(in: -10_000_000_000...10_000_000_000, using: &generator))
            #expect(decimal(mass.kilogramText) == mass.kilograms, "\(mass.micrograms)")
            #expect(mass.kilogramText.split(separator: ".").last?.count == 6, "\(mass.micrograms)")
        }
    }

    @Test("on the wire a weight is the Double nearest its rounded value in the unit, never one a bit off")
    func wireDoubles() {
        // NSDecimalNumber's doubleValue sent these as 58.779999999999994, 0.06999999999999999, ….
        #expect(Mass(micrograms: 58_780_000).doubleValue(in: .kg) == 58.78)
        #expect(Mass(micrograms: 70_000).doubleValue(in: .kg) == 0.07)
        #expect(Mass(micrograms: -1_970_819_754).doubleValue(in: .kg) == -1970.82)
        #expect(Mass(micrograms: 102_058_284).doubleValue(in: .lb) == 225)
        #expect(Mass(micrograms: 5_000).doubleValue(in: .kg) == 0.01, "a half rounds away from zero")
        #expect(Mass(micrograms: -5_000).doubleValue(in: .kg) == -0.01)
        #expect(Mass(micrograms: 4_999).doubleValue(in: .kg) == 0)
        #expect(
            Mass(micrograms: .max).doubleValue(in: .lb) == Double(Mass(micrograms: .max).value(in: .lb).description))
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let mass = Mass(micrograms: Int64.random(in: -3_000_000_000_000...3_000_000_000_000, using: &generator))
            for unit in [WeightUnit.kg, .lb] {
                let expected = Double(mass.value(in: unit).description)
                #expect(mass.doubleValue(in: unit) == expected, "\(mass.micrograms) \(unit)")
            }
        }
        #expect(decimal("0.07").doubleValue == 0.07)
        #expect(decimal("82.37").doubleValue == 82.37)
        #expect(decimal("8.5").doubleValue == 8.5)
        #expect(decimal("-12.345678").doubleValue == -12.345678)
    }
}
