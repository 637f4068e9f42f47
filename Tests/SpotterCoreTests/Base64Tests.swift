import Foundation
import SpotterCore
import Testing

@Suite("base64url without padding, for tokens and page tokens")
struct Base64Tests {
    /// What the encoder wrote before: Foundation's base64 in the URL alphabet, without padding.
    static func foundationURLSafe(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    @Test("writes what Foundation writes, and reads it back, for every length to 100 and every byte value")
    func roundTrip() {
        var generator = SystemRandomNumberGenerator()
        var samples: [[UInt8]] = (0...100).map { count in
            (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
        }
        samples.append(Array(0...255))
        samples.append([0xfb, 0xff, 0xbf])  // every sextet 62 or 63: "-" and "_"
        for bytes in samples {
            let text = Base64.encodeURLSafe(bytes)
            #expect(text == Self.foundationURLSafe(bytes), "\(bytes)")
            #expect(Base64.decodeURLSafe(text) == bytes, "\(text)")
            let standard = Base64.encodeUnpadded(bytes)
            #expect(standard == Data(bytes).base64EncodedString().replacingOccurrences(of: "=", with: ""))
            #expect(Base64.decodeUnpadded(standard) == bytes, "\(standard)")
        }
        #expect(Base64.encodeURLSafe([0xfb, 0xff, 0xbf]) == "-_-_")
    }

    @Test(
        "refuses what no encoding writes: other characters, padding, a length of 4n+1, unused bits set",
        arguments: ["A", "AAAAA", "AB", "AAB", "a+bc", "a/bc", "AA==", "AA A", "ÄÄÄÄ", "AAA\n"])
    func refuses(text: String) {
        #expect(Base64.decodeURLSafe(text) == nil, "\(text)")
    }

    @Test("the empty text is no bytes; two or three characters are one or two bytes")
    func shortTexts() {
        #expect(Base64.decodeURLSafe("") == [])
        #expect(Base64.decodeURLSafe("AA") == [0])
        #expect(Base64.decodeURLSafe("AAA") == [0, 0])
        #expect(Base64.decodeURLSafe("_w") == [0xff])
    }
}
