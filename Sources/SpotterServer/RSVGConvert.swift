import Foundation
import SpotterCore

/// PNGs from SVG with `rsvg-convert` (Debian's `librsvg2-bin`, which `scripts/setup.sh` installs
/// with the DejaVu fonts the images name). A separate process rather than a Swift rasterizer:
/// librsvg draws text with real font shaping and antialiasing, which no Swift package available
/// here does, and a crash in it cannot take the server down. At most `concurrency` conversions
/// run at once and `maxWaiting` wait (one more is refused: "the server is busy rendering images");
/// one that takes longer than `timeout` is stopped.
public struct RSVGConvert: ImageRenderer {
    private let executable: String
    private let timeout: Duration
    private let limiter: ConcurrencyLimiter

    public init(
        executable: String = "rsvg-convert", concurrency: Int = 2, maxWaiting: Int = 32,
        timeout: Duration = .seconds(10)
    ) {
        self.init(
            executable: executable,
            limiter: ConcurrencyLimiter(limit: concurrency, maxWaiting: maxWaiting, work: "rendering images"),
            timeout: timeout)
    }

    /// A renderer whose conversions take turns in `limiter`.
    public init(executable: String = "rsvg-convert", limiter: ConcurrencyLimiter, timeout: Duration = .seconds(10)) {
        self.executable = executable
        self.limiter = limiter
        self.timeout = timeout
    }

    public func png(svg: String, width: Int, height: Int) async throws -> Data {
        let (executable, timeout) = (self.executable, self.timeout)
        return try await limiter.run(waiting: {
            try await Self.convert(svg, width: width, height: height, executable: executable, timeout: timeout)
        })
    }

    private static func convert(_ svg: String, width: Int, height: Int, executable: String, timeout: Duration)
        async throws -> Data
    {
        let directory = FileManager.default.temporaryDirectory.appending(path: "spotter-png-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appending(path: "in.svg")
        let output = directory.appending(path: "out.png")
        try Data(svg.utf8).write(to: input)

        let process = Process()
        // coreutils' timeout stops a conversion that runs too long (exit status 124).
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "timeout", "\(max(1, timeout.components.seconds))", executable, "--format", "png", "--width", "\(width)",
            "--height", "\(height)", "--output", output.path,
            input.path,
        ]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        guard status == 0, let png = try? Data(contentsOf: output) else {
            let reason =
                switch status {
                case 127: "PNG images need rsvg-convert (Debian package librsvg2-bin); SVG works without it"
                case 124: "the PNG took longer than \(timeout) to render"
                default: "the PNG could not be rendered: \(message.trimmingWhitespacesAndNewlines())"
                }
            throw SpotterError.unavailable(reason)
        }
        return png
    }
}
