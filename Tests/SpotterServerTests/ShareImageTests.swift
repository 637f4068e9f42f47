import Foundation
import SpotterCore
import SpotterServer
import SpotterTestSupport
import Testing

@Suite("Share images as PNG")
struct ShareImageTests {
    /// Width and height from a PNG's IHDR chunk; `nil` when it is not a PNG.
    static func dimensions(_ png: Data) -> (width: Int, height: Int)? {
        let bytes = [UInt8](png)
        guard bytes.count > 24, bytes.prefix(8) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A],
            bytes[12..<16] == [0x49, 0x48, 0x44, 0x52]
        else { return nil }
        func int(_ at: Int) -> Int { bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        return (int(16), int(20))
    }

    /// Set SPOTTER_SHARE_EXAMPLES to a directory to keep the images (scripts/share-examples.sh
    /// writes docs/share/ that way).
    private static let examples = ProcessInfo.processInfo.environment["SPOTTER_SHARE_EXAMPLES"]

    @Test("rsvg-convert renders the workout card and the progress chart at 1200 × 630")
    func png() async throws {
        let renderer = RSVGConvert()
        let format = DisplayFormat(timeZone: "Europe/Berlin", unit: .kg)
        let images = [
            ("workout-card", ShareCards.workoutCard(ShareFixtures.workout(name: "Push day: bench PR"), format: format)),
            ("progress-chart", ShareCards.progressChart(ShareFixtures.progress(), format: format, formula: .epley)),
        ]
        for (name, svg) in images {
            let png = try await renderer.png(svg: svg, width: 1200, height: 630)
            let size = try #require(Self.dimensions(png), "\(name) is not a PNG")
            #expect(size == (1200, 630))
            // A blank picture compresses to almost nothing; text and a chart do not.
            #expect(png.count > 20_000, "\(name): \(png.count) bytes")
            if let directory = Self.examples {
                try Data(svg.utf8).write(to: URL(fileURLWithPath: directory).appending(path: "\(name).svg"))
                try png.write(to: URL(fileURLWithPath: directory).appending(path: "\(name).png"))
            }
        }
    }

    @Test("without rsvg-convert a PNG is UNAVAILABLE with the package to install, and SVG still works")
    func missingConverter() async throws {
        let renderer = RSVGConvert(executable: "rsvg-convert-not-installed")
        await #expect(
            throws: SpotterError.unavailable(
                "PNG images need rsvg-convert (Debian package librsvg2-bin); SVG works without it")
        ) { _ = try await renderer.png(svg: "<svg xmlns='http://www.w3.org/2000/svg'/>", width: 10, height: 10) }
    }

    @Test("a conversion is stopped at the timeout")
    func timeout() async throws {
        // `sleep` stands in for a converter that hangs: it ignores the arguments it cannot parse
        // only after failing, so use a script that sleeps whatever it is given.
        let script = NSTemporaryDirectory() + "hang-\(UUID().uuidString).sh"
        try "#!/bin/sh\nsleep 30\n".write(toFile: script, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script)
        defer { try? FileManager.default.removeItem(atPath: script) }
        let renderer = RSVGConvert(executable: script, timeout: .seconds(1))
        // A process another test starts at the moment the script is written can inherit the
        // writing descriptor and keep the new file "busy" for exec (ETXTBSY) a little while: that
        // is the test's own race, not the renderer's, so it tries again.
        var answer: SpotterError?
        for _ in 0..<20 {
            do {
                _ = try await renderer.png(svg: "<svg/>", width: 10, height: 10)
                answer = nil
            } catch let error as SpotterError {
                answer = error
            }
            guard case .unavailable(let message)? = answer, message.contains("Text file busy") else { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(answer == SpotterError.unavailable("the PNG took longer than 1.0 seconds to render"))
    }

    @Test("conversions take turns in the renderer's limiter; past its line a PNG is refused at once")
    func busy() async throws {
        let limiter = ConcurrencyLimiter(limit: 1, maxWaiting: 0, work: "rendering images")
        let renderer = RSVGConvert(limiter: limiter)
        let (gate, open) = AsyncStream<Void>.makeStream()
        let holder = Task { try await limiter.run(waiting: { for await _ in gate { break } }) }
        for _ in 0..<500 where await limiter.runningCount == 0 {
            try await Task.sleep(for: .milliseconds(10))
        }
        let svg = "<svg xmlns='http://www.w3.org/2000/svg' width='10' height='10'/>"
        await #expect(
            throws: SpotterError.tooManyRequests(
                "the server is busy rendering images; try again in a second", retryAfterSeconds: 1)
        ) { _ = try await renderer.png(svg: svg, width: 10, height: 10) }
        open.finish()
        try await holder.value
        let png = try await renderer.png(svg: svg, width: 10, height: 10)
        #expect(Self.dimensions(png).map { [$0.width, $0.height] } == [10, 10])
    }
}
