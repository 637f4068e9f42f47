import Foundation

/// The rows a statement returned, copied out of libpq's result so they outlive it.
public struct PostgresRows: Sendable, RandomAccessCollection {
    /// Column names, in order.
    public let columns: [String]
    /// The rows, in the order the server sent them.
    public let rows: [PostgresRow]
    /// The number of rows an INSERT, UPDATE or DELETE touched (0 for other statements).
    public let affectedRows: Int

    public var startIndex: Int { rows.startIndex }
    public var endIndex: Int { rows.endIndex }
    public subscript(position: Int) -> PostgresRow { rows[position] }

    /// The only row, or `nil` when there is none.
    public var single: PostgresRow? { rows.first }
}

/// One row of text-format values, read by column name or position.
public struct PostgresRow: Sendable {
    let columnIndex: ColumnIndex
    let values: ResultValues
    /// Where the row's first value is in `values`.
    let first: Int

    /// Decodes the column with this name.
    public func decode<T: PostgresDecodable>(_ column: String, as type: T.Type = T.self) throws -> T {
        guard let position = columnIndex.position(of: column) else {
            throw PostgresError(kind: .decoding, message: "no column named \(column)", column: column)
        }
        return try decode(position, as: type)
    }

    /// Decodes the column at this position.
    public func decode<T: PostgresDecodable>(_ position: Int, as type: T.Type = T.self) throws -> T {
        guard columnIndex.names.indices.contains(position) else {
            throw PostgresError(kind: .decoding, message: "no column at position \(position)")
        }
        do {
            return try values.withValue(at: first + position) { try T.decode(nullableUTF8: $0) }
        } catch let failure as PostgresDecodingFailure {
            let name = columnIndex.names[position]
            throw PostgresError(
                kind: .decoding,
                message: "column \(name) as \(T.self): \(failure.reason)",
                column: name
            )
        }
    }
}

/// The values of one result, copied out of libpq's result into one buffer of UTF-8 (one allocation
/// for a result, where a `String` per value cost one for every id and time), row after row.
final class ResultValues: Sendable {
    private let bytes: [UInt8]
    /// Each value's range in `bytes`, row after row; `nil` for NULL.
    private let ranges: [Range<Int>?]

    init(bytes: [UInt8], ranges: [Range<Int>?]) {
        self.bytes = bytes
        self.ranges = ranges
    }

    /// Calls `body` with the value's UTF-8, `nil` for NULL.
    func withValue<T>(at index: Int, _ body: (UnsafeBufferPointer<UInt8>?) throws -> T) rethrows -> T {
        guard let range = ranges[index] else { return try body(nil) }
        return try bytes.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[range])) }
    }
}

/// Column names shared by every row of one result.
final class ColumnIndex: Sendable {
    let names: [String]
    /// Each name's UTF-8, for `position(of:)`.
    private let utf8: [[UInt8]]

    init(names: [String]) {
        self.names = names
        self.utf8 = names.map { Array($0.utf8) }
    }

    /// The position of the first column with this name. A result has a handful of short names, and
    /// every row's decoding asks for each of them: comparing their bytes takes half the time of
    /// hashing the name for a dictionary (a progress report decodes 14 columns of 780 rows).
    func position(of name: String) -> Int? {
        var name = name
        return name.withUTF8 { wanted in
            for position in utf8.indices where utf8[position].count == wanted.count {
                let equal = utf8[position].withUnsafeBufferPointer { candidate in
                    wanted.isEmpty || memcmp(candidate.baseAddress!, wanted.baseAddress!, wanted.count) == 0
                }
                if equal { return position }
            }
            return nil
        }
    }
}
