import Foundation
import ValueText

/// A Swift value that can be sent as a statement parameter, in PostgreSQL's text format.
///
/// `nil` (through `Optional`) is sent as SQL NULL. Parameters are always sent separately from the
/// statement text: nothing here builds SQL.
public protocol PostgresEncodable: Sendable {
    /// The parameter's text form, or `nil` for NULL.
    var postgresText: String? { get }

    /// Appends the text form's UTF-8 to `bytes` and answers `true`, or answers `false` for NULL
    /// and appends nothing. What a statement's parameters are sent from (`PostgresParameters`);
    /// the default appends `postgresText`, and types that can write their text without making a
    /// `String` first (arrays, ids) do.
    func appendPostgresText(to bytes: inout [UInt8]) -> Bool
}

extension PostgresEncodable {
    public func appendPostgresText(to bytes: inout [UInt8]) -> Bool {
        guard let text = postgresText else { return false }
        bytes.append(contentsOf: text.utf8)
        return true
    }
}

extension String: PostgresEncodable {
    public var postgresText: String? { self }
}

extension Substring: PostgresEncodable {
    public var postgresText: String? { String(self) }
}

extension Int: PostgresEncodable {
    public var postgresText: String? { String(self) }
}

extension Int64: PostgresEncodable {
    public var postgresText: String? { String(self) }
}

extension Int32: PostgresEncodable {
    public var postgresText: String? { String(self) }
}

extension Int16: PostgresEncodable {
    public var postgresText: String? { String(self) }
}

extension Bool: PostgresEncodable {
    public var postgresText: String? { self ? "true" : "false" }
}

extension Double: PostgresEncodable {
    public var postgresText: String? { "\(self)" }
}

extension Decimal: PostgresEncodable {
    public var postgresText: String? { plainText }
}

extension UUID: PostgresEncodable {
    public var postgresText: String? { lowercasedString }

    public func appendPostgresText(to bytes: inout [UInt8]) -> Bool {
        appendLowercased(to: &bytes)
        return true
    }
}

extension Date: PostgresEncodable {
    public var postgresText: String? { PostgresTimestamp.format(self) }

    public func appendPostgresText(to bytes: inout [UInt8]) -> Bool {
        PostgresTimestamp.append(self, to: &bytes)
        return true
    }
}

/// A `bytea` value.
public struct PostgresBytes: PostgresEncodable, PostgresDecodable, Hashable {
    public var bytes: [UInt8]

    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    public var postgresText: String? {
        let digits: [UInt8] = Array("0123456789abcdef".utf8)
        var text: [UInt8] = [UInt8(ascii: "\\"), UInt8(ascii: "x")]
        text.reserveCapacity(2 + bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    public static func decode(postgresText text: String) throws -> PostgresBytes {
        let utf8 = Array(text.utf8)
        guard utf8.count >= 2, utf8[0] == UInt8(ascii: "\\"), utf8[1] == UInt8(ascii: "x"), utf8.count % 2 == 0 else {
            throw PostgresDecodingFailure("bytea is not in hex format")
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity((utf8.count - 2) / 2)
        var index = 2
        while index < utf8.count {
            guard let high = utf8[index].hexadecimalDigitValue, let low = utf8[index + 1].hexadecimalDigitValue else {
                throw PostgresDecodingFailure("bytea has a non-hex digit")
            }
            bytes.append(high << 4 | low)
            index += 2
        }
        return PostgresBytes(bytes)
    }
}

extension Optional: PostgresEncodable where Wrapped: PostgresEncodable {
    public var postgresText: String? {
        switch self {
        case .some(let value): value.postgresText
        case .none: nil
        }
    }

    public func appendPostgresText(to bytes: inout [UInt8]) -> Bool {
        switch self {
        case .some(let value): value.appendPostgresText(to: &bytes)
        case .none: false
        }
    }
}

/// An array parameter (`$1::uuid[]`) in PostgreSQL's array literal form: every element quoted and
/// escaped, `nil` elements as NULL. Lets one statement insert many rows through `unnest`.
extension Array: PostgresEncodable where Element: PostgresEncodable {
    public var postgresText: String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count * 8 + 2)
        _ = appendPostgresText(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Each element's text is written in place between its quotes, and escaped there in the rare
    /// case it holds a quote or a backslash. (No `enumerated()` or other generic wrappers here:
    /// unspecialized, each costs a metadata lookup per element.)
    public func appendPostgresText(to bytes: inout [UInt8]) -> Bool {
        let (quote, backslash) = (UInt8(ascii: "\""), UInt8(ascii: "\\"))
        bytes.append(UInt8(ascii: "{"))
        var first = true
        for element in self {
            if first { first = false } else { bytes.append(UInt8(ascii: ",")) }
            let opening = bytes.count
            bytes.append(quote)
            guard element.appendPostgresText(to: &bytes) else {
                bytes.removeLast()
                bytes.append(contentsOf: "NULL".utf8)
                continue
            }
            if let special = bytes[(opening + 1)...].firstIndex(where: { $0 == quote || $0 == backslash }) {
                var escaped: [UInt8] = []
                escaped.reserveCapacity(bytes.count - special + 8)
                for byte in bytes[special...] {
                    if byte == quote || byte == backslash { escaped.append(backslash) }
                    escaped.append(byte)
                }
                bytes.replaceSubrange(special..., with: escaped)
            }
            bytes.append(quote)
        }
        bytes.append(UInt8(ascii: "}"))
        return true
    }
}
