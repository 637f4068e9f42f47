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
    let values: [String?]

    /// Decodes the column with this name.
    public func decode<T: PostgresDecodable>(_ column: String, as type: T.Type = T.self) throws -> T {
        guard let position = columnIndex.position(of: column) else {
            throw PostgresError(kind: .decoding, message: "no column named \(column)", column: column)
        }
        return try decode(position, as: type)
    }

    /// Decodes the column at this position.
    public func decode<T: PostgresDecodable>(_ position: Int, as type: T.Type = T.self) throws -> T {
        do {
            return try T.decode(nullable: values[position])
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
