import Foundation
import SpotterTestSupport
import Testing
import ValueText

@Suite("Trimming white space as Foundation does")
struct TrimmingTests {
    /// Every scalar alone is trimmed away exactly when Foundation's set holds it.
    @Test("every Unicode scalar is trimmed exactly when Foundation's two sets hold it")
    func everyScalar() async throws {
        // Seconds of work in a debug build: off the cooperative pool, where other suites' calls wait.
        let differences = try await blocking { Self.differences() }
        #expect(differences.isEmpty, "\(differences.prefix(20))")
    }

    private static func differences() -> [String] {
        var differences: [String] = []
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let alone = String(Character(scalar))
            if alone.trimmingWhitespacesAndNewlines().isEmpty != CharacterSet.whitespacesAndNewlines.contains(scalar) {
                differences.append("U+\(String(value, radix: 16, uppercase: true)) (.whitespacesAndNewlines)")
            }
            if alone.trimmingWhitespaces().isEmpty != CharacterSet.whitespaces.contains(scalar) {
                differences.append("U+\(String(value, radix: 16, uppercase: true)) (.whitespaces)")
            }
        }
        return differences
    }

    @Test("text is trimmed at both ends only, scalar by scalar, and a substring trims as its text")
    func texts() {
        let samples = [
            "", " ", "\t\n\r ", "Squat", "  Squat  ", "\u{3000}Bench\u{2028}", " a b\tc ", "\n\u{85}x\u{A0}",
            " \u{301}", "e\u{301} ", "🏋️ ", "\u{FEFF}Deadlift", "Row\u{200B}", " \r\n",
        ]
        for text in samples {
            #expect(text.trimmingWhitespacesAndNewlines() == text.trimmingCharacters(in: .whitespacesAndNewlines))
            #expect(text.trimmingWhitespaces() == text.trimmingCharacters(in: .whitespaces))
            let padded = "x" + text + "y"
            let inner = padded.dropFirst().dropLast()
            #expect(inner.trimmingWhitespacesAndNewlines() == text.trimmingCharacters(in: .whitespacesAndNewlines))
        }
    }
}
