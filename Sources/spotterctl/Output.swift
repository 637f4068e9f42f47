import Foundation

/// Prints rows as an aligned table for people, or values as JSON for scripts.
enum Output {
    static func json(_ value: some Encodable) throws {
        print(String(decoding: try encode(value), as: UTF8.self))
    }

    /// spotterctl's JSON: pretty, sorted keys, snake_case, ISO 8601 dates.
    static func encode(_ value: some Encodable) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        encoder.keyEncodingStrategy = .convertToSnakeCase
        return try encoder.encode(value)
    }

    /// A JSON document kept as JSON in an encoded value (an audit row's `details`), not as a string
    /// of JSON inside it.
    enum Embedded: Codable {
        case null
        case bool(Bool)
        case number(Double)
        case string(String)
        case array([Embedded])
        case object([String: Embedded])

        /// The JSON `text` holds; a text that is not JSON stays a string.
        init(json text: String) {
            self = (try? JSONDecoder().decode(Embedded.self, from: Data(text.utf8))) ?? .string(text)
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                self = .null
            } else if let value = try? container.decode(Bool.self) {
                self = .bool(value)
            } else if let value = try? container.decode(Double.self) {
                self = .number(value)
            } else if let value = try? container.decode(String.self) {
                self = .string(value)
            } else if let value = try? container.decode([Embedded].self) {
                self = .array(value)
            } else {
                self = .object(try container.decode([String: Embedded].self))
            }
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .null: try container.encodeNil()
            case .bool(let value): try container.encode(value)
            case .number(let value):
                if value == value.rounded(), abs(value) < 1e15 {
                    try container.encode(Int64(value))
                } else {
                    try container.encode(value)
                }
            case .string(let value): try container.encode(value)
            case .array(let values): try container.encode(values)
            case .object(let fields): try container.encode(fields)
            }
        }
    }

    static func table(_ header: [String], _ rows: [[String]]) {
        var widths = header.map(\.count)
        for row in rows {
            for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) }
        }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { index, cell in
                index == cells.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }
        print(line(header))
        for row in rows { print(line(row)) }
        if rows.isEmpty { print("(none)") }
    }

    /// An instant in UTC, with its `Z`: a time without a zone could be read as the reader's own.
    static func date(_ date: Date?) -> String {
        guard let date else { return "-" }
        return date.formatted(
            .iso8601.year().month().day().time(includingFractionalSeconds: false).timeSeparator(.colon)
                .timeZone(separator: .omitted))
    }

    /// A tier's end for people: the instant, and the last day it covers when it ends at midnight UTC
    /// (`--until 2027-01-31` ends at 2027-02-01T00:00:00Z, "through 2027-01-31").
    static func tierEnd(_ end: Date) -> String {
        let seconds = Int(end.timeIntervalSince1970)
        guard seconds % 86_400 == 0 else { return date(end) }
        let lastDay = Date(timeIntervalSince1970: Double(seconds - 86_400))
        return date(end) + " (through " + String(date(lastDay).prefix(10)) + ")"
    }
}

/// One value of a command's outcome as `--json` writes it: a count as a number, a yes or no as a
/// boolean, nothing as `null` (`"sessions_revoked": 1`, not `"1"`).
enum Field: Encodable, ExpressibleByStringLiteral, ExpressibleByBooleanLiteral {
    case text(String)
    case number(Int)
    case flag(Bool)
    case none

    init(stringLiteral value: String) { self = .text(value) }
    init(booleanLiteral value: Bool) { self = .flag(value) }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .text(let text): try container.encode(text)
        case .number(let number): try container.encode(number)
        case .flag(let flag): try container.encode(flag)
        case .none: try container.encodeNil()
        }
    }
}
