import Foundation
import SpotterCore
import Testing

@Suite("Identifiers")
struct IdentifierTests {
    @Test("ids are written in Foundation's form, lowercase, and read back")
    func lowercaseForm() throws {
        for _ in 0..<1000 {
            let id = TenantID.random()
            #expect(id.description == id.rawValue.uuidString.lowercased())
            #expect(TenantID(id.description) == id)
        }
        let zero = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
        #expect(zero.lowercasedString == "00000000-0000-0000-0000-000000000000")
        let max = UUID(uuid: (255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255))
        #expect(max.lowercasedString == "ffffffff-ffff-ffff-ffff-ffffffffffff")
    }

    @Test("ids are read in the 8-4-4-4-12 form alone, any case, as Foundation reads that form")
    func readsTheCanonicalForm() {
        var texts = ["", "00000000-0000-0000-0000-000000000000", "{00000000-0000-0000-0000-000000000000}"]
        for _ in 0..<300 {
            let text = UUID().uuidString
            texts += [text, text.lowercased(), String(text.dropLast()), text + "0", " " + text.dropFirst()]
            // One letter's case changed.
            var mixed = Array(text.lowercased())
            let place = Int.random(in: 0..<36)
            mixed[place] =
                mixed[place].isUppercase ? Character(mixed[place].lowercased()) : Character(mixed[place].uppercased())
            texts.append(String(mixed))
            // One place replaced by something else: another digit, a letter beyond f, a dash, a
            // space, a sign, a character of two bytes (the text keeps its length in characters only).
            for replacement: Character in ["7", "g", "G", "-", " ", "é", "+"] {
                var changed = Array(text)
                changed[Int.random(in: 0..<36)] = replacement
                texts.append(String(changed))
            }
        }
        // Foundation reads through `sscanf`, which also takes a space or a sign where a digit
        // belongs (" 5e2…" as "05e2…"); such texts are refused.
        let canonical = /[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}/
        var read = 0
        for text in texts {
            if text.wholeMatch(of: canonical) != nil {
                read += 1
                #expect(UUID(hexadecimal: text) != nil && UUID(hexadecimal: text) == UUID(uuidString: text), "\(text)")
                #expect(TenantID(text)?.rawValue == UUID(uuidString: text), "\(text)")
            } else {
                #expect(UUID(hexadecimal: text) == nil, "\(text)")
                #expect(TenantID(text) == nil, "\(text)")
            }
        }
        #expect(read > 900)
    }
}
