import Testing

@testable import SpotterPortal

@Suite("Portal number formatting")
struct PortalFormatTests {
    @Test("one decimal, rounded half away from zero, no negative zero", arguments: [
        (0.0, "0.0"), (128.25, "128.3"), (135.649, "135.6"), (-1.25, "-1.3"), (-0.04, "0.0"), (0.05, "0.1"),
        (1_234_567.89, "1234567.9"), (Double.nan, "–"),
    ])
    func oneDecimal(value: Double, text: String) {
        #expect(Format.oneDecimal(value) == text)
    }
}
