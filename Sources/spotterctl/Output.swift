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
