import Postgres
import SpotterCore
import SpotterPostgres
import Testing

@Suite("kilogram columns as exact micrograms")
struct MassColumnTests {
    @Test(
        "numeric text reads as exact micrograms and writes back the same text",
        arguments: [
            ("102.058283", Int64(102_058_283)), ("0.000000", 0), ("2000.000000", 2_000_000_000),
            ("-1.500000", -1_500_000),
        ]
    )
    func roundTrip(text: String, micrograms: Int64) throws {
        let mass = try Mass.decode(postgresText: text)
        #expect(mass.micrograms == micrograms)
        #expect(mass.postgresText == text)
    }

    @Test("short and over-long fractions scale to six places; garbage is refused")
    func scales() throws {
        #expect(try Mass.decode(postgresText: "100").micrograms == 100_000_000)
        #expect(try Mass.decode(postgresText: "7.5").micrograms == 7_500_000)
        #expect(try Mass.decode(postgresText: "1.1234567").micrograms == 1_123_456)
        #expect(throws: (any Error).self) { try Mass.decode(postgresText: "kg") }
        #expect(throws: (any Error).self) { try Mass.decode(postgresText: "") }
        #expect(throws: (any Error).self) { try Mass.decode(postgresText: "99999999999999999999") }
    }
}
