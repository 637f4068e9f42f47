import Foundation
import Logging
import Synchronization

/// Writes one JSON object per line to standard error (`SPOTTER_LOG_FORMAT=json`): `timestamp`
/// (RFC 3339 UTC with milliseconds), `level`, `label`, `message`, and every metadata key (for a
/// call: `request_id`, `method`, `tenant`, `ms`, `code`) as a top-level field. The handlers only
/// ever put identifiers, counts and codes in metadata, never a token, a password or an e-mail body.
public struct JSONLogHandler: LogHandler {
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    private let label: String
    private let output: JSONLogOutput

    public init(label: String, level: Logger.Level, output: JSONLogOutput = .standardError) {
        self.label = label
        self.logLevel = level
        self.output = output
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var fields: [String: Any] = [:]
        for (key, value) in metadata.merging(event.metadata ?? [:], uniquingKeysWith: { _, new in new }) {
            fields[key] = Self.json(value)
        }
        fields["timestamp"] = Self.timestamp(Date())
        fields["level"] = "\(event.level)"
        fields["label"] = label
        fields["message"] = "\(event.message)"
        if event.level >= .error { fields["source"] = "\(event.file.split(separator: "/").last ?? ""):\(event.line)" }
        guard
            var line = try? JSONSerialization.data(
                withJSONObject: fields, options: [.sortedKeys, .withoutEscapingSlashes])
        else { return }
        line.append(0x0A)
        output.write(line)
    }

    private static func json(_ value: Logger.Metadata.Value) -> Any {
        switch value {
        case .string(let text): text
        case .stringConvertible(let convertible): "\(convertible)"
        case .array(let values): values.map(json)
        case .dictionary(let values): values.mapValues(json)
        }
    }

    private static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt))
    }
}

/// Where JSON log lines go: whole lines, one writer at a time, so lines from concurrent calls never
/// interleave.
public final class JSONLogOutput: Sendable {
    private let handle: Mutex<FileHandle>

    public init(_ handle: FileHandle) {
        self.handle = Mutex(handle)
    }

    public static let standardError = JSONLogOutput(FileHandle.standardError)

    func write(_ line: Data) {
        handle.withLock { $0.write(line) }
    }
}
