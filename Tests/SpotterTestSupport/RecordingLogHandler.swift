import Logging
import Synchronization

/// Keeps every line logged through it, with its metadata as text, and counts the writes to its
/// own metadata.
public struct RecordingLogHandler: LogHandler {
    public final class Lines: Sendable {
        public init() {}

        private let state = Mutex<(lines: [(message: String, metadata: [String: String])], writes: Int)>(([], 0))
        public func append(_ message: String, _ metadata: [String: String]) {
            state.withLock { $0.lines.append((message, metadata)) }
        }
        public func wrote() { state.withLock { $0.writes += 1 } }
        public var all: [(message: String, metadata: [String: String])] { state.withLock { $0.lines } }
        public var metadataWrites: Int { state.withLock { $0.writes } }
    }

    public let lines: Lines

    public init(lines: Lines) {
        self.lines = lines
    }

    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:] {
        didSet { lines.wrote() }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let all = metadata.merging(event.metadata ?? [:]) { _, new in new }
        lines.append("\(event.message)", all.mapValues { "\($0)" })
    }
}
