import Foundation

/// RFC 4180 comma-separated values: reading other apps' exports and writing ours.
public enum CSV {
    /// One field, quoted when it holds the separator, a quote or a line break (quotes doubled).
    public static func field(_ value: String, separator: Character = ",") -> String {
        // By scalar: "\r\n" is one Character, equal to neither "\r" nor "\n".
        let separator = separator.unicodeScalars.first!
        guard value.unicodeScalars.contains(where: { $0 == separator || $0 == "\"" || $0 == "\n" || $0 == "\r" })
        else { return value }
        return "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// A record ending in CRLF, as RFC 4180 writes it.
    public static func record(_ fields: [String]) -> String {
        fields.map { field($0) }.joined(separator: ",") + "\r\n"
    }

    /// The records of `text`: fields split on `separator`, quoted fields may hold separators,
    /// doubled quotes and line breaks. A byte-order mark is skipped, CRLF and LF both end a
    /// record, and blank lines are dropped. `nil` when a quoted field never ends. Works on the
    /// UTF-8 bytes (every byte that matters is ASCII): a ten-year export has 100,000 rows.
    public static func records(_ text: String, separator: Character) -> [[String]]? {
        try? read(text, separator: separator).get()
    }

    /// `records`, or the 1-based number of the record whose quoted field never ends (the header is
    /// record 1, as the import's row numbers count).
    static func read(_ text: String, separator: Character) -> Result<[[String]], UnclosedQuote> {
        let bytes = Array(text.utf8)
        let separator = separator.asciiValue ?? UInt8(ascii: ",")
        let quote = UInt8(ascii: "\""), cr = UInt8(ascii: "\r"), lf = UInt8(ascii: "\n")
        var records: [[String]] = []
        var record: [String] = []
        var index = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        var fieldStart = index
        // A quoted field's unescaped bytes, while it is read and until its field ends.
        var quoted: [UInt8] = []
        var inQuotes = false, wasQuoted = false
        // The record the last quoted field began in.
        var openedIn = 0
        func endField(at end: Int) {
            record.append(String(decoding: wasQuoted ? quoted[...] : bytes[fieldStart..<end], as: UTF8.self))
            quoted.removeAll(keepingCapacity: true)
            wasQuoted = false
        }
        func endRecord() {
            if !(record.count == 1 && record[0].isEmpty) { records.append(record) }
            record = []
        }
        while index < bytes.count {
            let byte = bytes[index]
            if inQuotes {
                if byte != quote {
                    quoted.append(byte)
                } else if index + 1 < bytes.count, bytes[index + 1] == quote {
                    quoted.append(quote)
                    index += 1
                } else {
                    // Anything between the closing quote and the field's end is dropped.
                    inQuotes = false
                }
                index += 1
                continue
            }
            switch byte {
            case quote where index == fieldStart:
                inQuotes = true
                openedIn = records.count + 1
                wasQuoted = true
            case separator:
                endField(at: index)
                fieldStart = index + 1
            case cr, lf:
                endField(at: index)
                if byte == cr, index + 1 < bytes.count, bytes[index + 1] == lf { index += 1 }
                fieldStart = index + 1
                endRecord()
            default:
                break
            }
            index += 1
        }
        if inQuotes { return .failure(UnclosedQuote(record: openedIn)) }
        if fieldStart < bytes.count || wasQuoted || !record.isEmpty {
            endField(at: bytes.count)
            endRecord()
        }
        return .success(records)
    }

    struct UnclosedQuote: Error, Equatable {
        var record: Int
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
        let records: [[String]]
        switch CSV.read(text, separator: separator) {
        case .success(let read): records = read
        case .failure(let unclosed):
            throw .invalid(
                "data",
                "is not valid CSV: row \(unclosed.record): a field opens with a quote (\") that is never closed, so the rest of the file would be one field"
            )
        }
        guard let header = records.first else { throw .invalid("data", "is empty: expected a \(file) CSV export") }
        var columns: [String: Int] = [:]
        for (index, name) in header.enumerated() {
            columns[name.trimmingWhitespaces().lowercased()] = index
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
        let value = row[index]
        // Most fields have nothing to trim; Foundation's trimming costs an NSString bridge each.
        guard let first = value.utf8.first, let last = value.utf8.last,
            first == 0x20 || first == 0x09 || last == 0x20 || last == 0x09
        else { return value }
        return value.trimmingWhitespaces()
    }
}
