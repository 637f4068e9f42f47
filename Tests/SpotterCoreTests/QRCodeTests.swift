import Foundation
import SpotterCore
import Testing

@Suite("QR codes")
struct QRCodeTests {
    /// Texts for versions 1, 2, 6, 7 (the first with version bits), 10 (the first with 16-bit
    /// lengths), 14 and 20, and an authenticator link as the portal draws it.
    static let texts = [
        "Spotter", String(repeating: "a", count: 20), String(repeating: "b", count: 100),
        String(repeating: "c", count: 120), String(repeating: "d", count: 200), String(repeating: "e", count: 400),
        String(repeating: "f", count: 666),
        TOTP.provisioningURI(secret: Array("12345678901234567890".utf8), account: "ada.lovelace"),
        "Grüße, 力 🏋️",
    ]

    @Test("the version is the smallest that holds the text at level M")
    func versions() throws {
        #expect(try QRCode("Spotter").version == 1)
        #expect(try QRCode(String(repeating: "a", count: 14)).version == 1)
        #expect(try QRCode(String(repeating: "a", count: 15)).version == 2)
        #expect(try QRCode(String(repeating: "c", count: 120)).version == 7)
        #expect(try QRCode(String(repeating: "f", count: 666)).version == 20)
        #expect(try QRCode("Spotter").size == 21)
        #expect(throws: QRCode.Failure.tooLong(bytes: 667)) { try QRCode(String(repeating: "g", count: 667)) }
    }

    @Test("the finder patterns sit in three corners with the timing pattern between them")
    func functionPatterns() throws {
        let code = try QRCode("Spotter")
        for (left, top) in [(0, 0), (code.size - 7, 0), (0, code.size - 7)] {
            #expect(code.isDark(x: left, y: top) && code.isDark(x: left + 6, y: top + 6))
            #expect(!code.isDark(x: left + 1, y: top + 1) && code.isDark(x: left + 3, y: top + 3))
        }
        #expect((8..<code.size - 8).allSatisfy { code.isDark(x: $0, y: 6) == ($0 % 2 == 0) })
    }

    /// Draws each code as the portal does, renders it with rsvg-convert and reads it back with
    /// zbarimg (Debian's librsvg2-bin and zbar-tools; `scripts/test.sh` installs both).
    @Test("a reader decodes every code back to its text", arguments: texts)
    func decodes(text: String) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("qr-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let svg = directory.appendingPathComponent("code.svg")
        let png = directory.appendingPathComponent("code.png")
        let code = try QRCode(text)
        try code.svg(pixels: (code.size + 8) * 6, title: "code").write(to: svg, atomically: true, encoding: .utf8)
        #expect(try run("rsvg-convert", ["-o", png.path, svg.path]).status == 0)
        let read = try run("zbarimg", ["--raw", "-q", "-Sbinary", png.path])
        #expect(read.status == 0)
        #expect(String(decoding: read.output, as: UTF8.self) == text)
    }

    private func run(_ tool: String, _ arguments: [String]) throws -> (status: Int32, output: Data) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [tool] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, output)
    }
}
