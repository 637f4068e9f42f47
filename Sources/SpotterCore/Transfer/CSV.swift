import Foundation

/// RFC 4180 comma-separated values: reading other apps' exports and writing ours.
public enum CSV {
    /// One field, quoted when it holds the separator, a quote or a line break (quotes doubled).
    public static func field(_ value: String, separator: Character = ",") -> String {
        guard value.contains(where: { $0 == separator || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else {
            return value
        }
        return "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// A record ending in CRLF, as RFC 4180 writes it.
    public static func record(_ fields: [String]) -> String {
        fields.map { field($0) }.joined(separator: ",") + "\r\n"
    }

    /// The records of `text`: fields split on `separator`, quoted fields may hold separators,
    /// doubled quotes and line breaks. A byte-order mark is skipped, CRLF and LF both end a
    /// record, and blank lines are dropped. `nil` when a quoted field never ends.
    public static func records(_ text: String, separator: Character) -> [[String]]? {
        var records: [[String]] = []
        var record: [String] = []
        var field = ""
        var quoted = false
        var iterator = text.unicodeScalars.makeIterator()
        var pending = iterator.next()
        if pending == "\u{FEFF}" { pending = iterator.next() }
        let separatorScalar = separator.unicodeScalars.first!
        func endRecord() {
            record.append(field)
            field = ""
            if !(record.count == 1 && record[0].isEmpty) { records.append(record) }
            record = []
        }
        while let scalar = pending {
            pending = iterator.next()
            if quoted {
                if scalar == "\"" {
                    if pending == "\"" {
                        field.unicodeScalars.append("\"")
                        pending = iterator.next()
                    } else {
                        quoted = false
                    }
                } else {
                    field.unicodeScalars.append(scalar)
                }
                continue
            }
            switch scalar {
            case "\"" where field.isEmpty: quoted = true
            case separatorScalar:
                record.append(field)
                field = ""
            case "\r":
                if pending == "\n" { pending = iterator.next() }
                endRecord()
            case "\n": endRecord()
            default: field.unicodeScalars.append(scalar)
            }
        }
        if quoted { return nil }
        if !field.isEmpty || !record.isEmpty { endRecord() }
        return records
    }
}

/// A CSV file read by its header: fields by column name, with the row's line for messages.
struct CSVTable {
    var columns: [String: Int]
    var rows: [[String]]

    /// Reads `text` with the header's separator (`;` when the header has more semicolons than
    /// commas, as Strong's older exports do).
    init(_ text: String, file: String) throws(SpotterError) {
        let headerLine = text.prefix { $0 != "\n" && $0 != "\r" }
        let separator: Character =
            headerLine.filter { $0 == ";" }.count > headerLine.filter { $0 == "," }.count ? ";" : ","
        guard let records = CSV.records(text, separator: separator) else {
            throw .invalid("data", "is not valid CSV: a quoted field is never closed")
        }
        guard let header = records.first else { throw .invalid("data", "is empty: expected a \(file) CSV export") }
        var columns: [String: Int] = [:]
        for (index, name) in header.enumerated() {
            columns[name.trimmingCharacters(in: .whitespaces).lowercased()] = index
        }
        self.columns = columns
        rows = Array(records.dropFirst())
    }

    /// Throws naming the first of `required` the header lacks.
    func require(_ required: [String], file: String) throws(SpotterError) {
        for name in required where columns[name] == nil {
            throw .invalid("data", "is not a \(file) CSV export: the header has no \"\(name)\" column")
        }
    }

    func has(_ column: String) -> Bool { columns[column] != nil }

    /// The trimmed value of `column` in `row`, empty when the row is short or the column absent.
    func value(_ row: [String], _ column: String) -> String {
        guard let index = columns[column], index < row.count else { return "" }
        return row[index].trimmingCharacters(in: .whitespaces)
    }
}
