import Foundation
import ValueText

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
    /// Plain numerics are read directly (the common case, and `Decimal(string:)` costs a locale
    /// lookup per call); anything else goes to Foundation.
    public static func decode(postgresText text: String) throws -> Decimal {
        if let fixed = PostgresFixedPoint(text) {
            return Decimal(
                sign: fixed.value < 0 ? .minus : .plus, exponent: -fixed.scale,
                significand: Decimal(fixed.value.magnitude))
        }
        guard let value = Decimal(string: text, locale: posixLocale) else {
            throw PostgresDecodingFailure("not a numeric")
        }
        return value
    }
}

/// A `numeric` in its plain text form `[-]digits[.digits]` as an integer and a scale:
/// `-12.30` is 1230 × 10⁻² negated. `nil` for any other form and beyond 18 significant digits.
public struct PostgresFixedPoint: Sendable, Equatable {
    /// The digits as one integer, signed.
    public var value: Int64
    /// Digits after the point.
    public var scale: Int

    public init?(_ text: String) {
        var magnitude: Int64 = 0
        var significant = 0
        var digits = 0
        var scale = 0
        var negative = false
        var fraction = false
        for (offset, byte) in text.utf8.enumerated() {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                if magnitude > 0 || byte != UInt8(ascii: "0") { significant += 1 }
                guard significant <= 18 else { return nil }
                magnitude = magnitude * 10 + Int64(byte - UInt8(ascii: "0"))
                digits += 1
                if fraction { scale += 1 }
            case UInt8(ascii: "-") where offset == 0:
                negative = true
            case UInt8(ascii: ".") where !fraction:
                fraction = true
            default:
                return nil
            }
        }
        guard digits > 0 else { return nil }
        self.value = negative ? -magnitude : magnitude
        self.scale = scale
    }
}

private let posixLocale = Locale(identifier: "en_US_POSIX")

extension UUID: PostgresDecodable {
    public static func decode(postgresText text: String) throws -> UUID {
        guard let value = UUID(hexadecimal: text) else { throw PostgresDecodingFailure("not a UUID") }
        return value
    }
}

extension Date: PostgresDecodable {
    public static func decode(postgresText text: String) throws -> Date {
        try PostgresTimestamp.parse(text)
    }
}
