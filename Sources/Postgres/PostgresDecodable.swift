import Foundation

/// A Swift type that a column value in PostgreSQL's text format decodes into.
public protocol PostgresDecodable: Sendable {
    /// Decodes a non-NULL value.
    static func decode(postgresText text: String) throws -> Self
    /// Decodes a value that may be NULL; only `Optional` accepts NULL.
    static func decode(nullable text: String?) throws -> Self
}

extension PostgresDecodable {
    public static func decode(nullable text: String?) throws -> Self {
        guard let text else { throw PostgresDecodingFailure("unexpected NULL") }
        return try decode(postgresText: text)
    }
}

/// Why a value could not be decoded; wrapped into a `PostgresError` naming the column.
public struct PostgresDecodingFailure: Error, Sendable {
    public var reason: String

    public init(_ reason: String) {
        self.reason = reason
    }
}

extension Optional: PostgresDecodable where Wrapped: PostgresDecodable {
    public static func decode(postgresText text: String) throws -> Wrapped? {
        try Wrapped.decode(postgresText: text)
    }

    public static func decode(nullable text: String?) throws -> Wrapped? {
        guard let text else { return nil }
        return try Wrapped.decode(postgresText: text)
    }
}

extension String: PostgresDecodable {
    public static func decode(postgresText text: String) throws -> String { text }
}

extension Bool: PostgresDecodable {
    public static func decode(postgresText text: String) throws -> Bool {
        switch text {
        case "t", "true": return true
        case "f", "false": return false
        default: throw PostgresDecodingFailure("not a boolean")
        }
    }
}

extension Int: PostgresDecodable {
    public static func decode(postgresText text: String) throws -> Int {
        guard let value = Int(text) else { throw PostgresDecodingFailure("not an integer") }
        return value
    }
}

extension Int64: PostgresDecodable {
    public static func decode(postgresText text: String) throws -> Int64 {
        guard let value = Int64(text) else { throw PostgresDecodingFailure("not an integer") }
        return value
    }
}

extension Int32: PostgresDecodable {
    public static func decode(postgresText text: String) throws -> Int32 {
        guard let value = Int32(text) else { throw PostgresDecodingFailure("not a 32-bit integer") }
        return value
    }
}

extension Double: PostgresDecodable {
    public static func decode(postgresText text: String) throws -> Double {
        guard let value = Double(text) else { throw PostgresDecodingFailure("not a number") }
        return value
    }
}

extension Decimal: PostgresDecodable {
    /// Plain `[-]digits[.digits]` of up to 18 significant digits is read directly (the common case,
    /// and `Decimal(string:)` costs a locale lookup per call); anything else goes to Foundation.
    public static func decode(postgresText text: String) throws -> Decimal {
        var significand: UInt64 = 0
        var digits = 0
        var scale = 0
        var negative = false
        var fraction = false
        var simple = true
        for (offset, byte) in text.utf8.enumerated() {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                if significand > 0 || byte != UInt8(ascii: "0") { digits += 1 }
                significand = significand &* 10 &+ UInt64(byte - UInt8(ascii: "0"))
                if fraction { scale += 1 }
            case UInt8(ascii: "-") where offset == 0:
                negative = true
            case UInt8(ascii: ".") where !fraction:
                fraction = true
            default:
                simple = false
            }
            if !simple || digits > 18 { break }
        }
        if simple, digits <= 18, !text.isEmpty {
            return Decimal(sign: negative ? .minus : .plus, exponent: -scale, significand: Decimal(significand))
        }
        guard let value = Decimal(string: text, locale: posixLocale) else {
            throw PostgresDecodingFailure("not a numeric")
        }
        return value
    }
}

private let posixLocale = Locale(identifier: "en_US_POSIX")

extension UUID: PostgresDecodable {
    public static func decode(postgresText text: String) throws -> UUID {
        guard let value = UUID(uuidString: text) else { throw PostgresDecodingFailure("not a UUID") }
        return value
    }
}

extension Date: PostgresDecodable {
    public static func decode(postgresText text: String) throws -> Date {
        try PostgresTimestamp.parse(text)
    }
}
