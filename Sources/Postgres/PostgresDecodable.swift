import Foundation
import ValueText

/// A Swift type that a column value in PostgreSQL's text format decodes into.
///
/// A row holds its values as UTF-8 in one buffer per result (`PostgresRows`) and decodes them
/// through `decode(postgresUTF8:)`: its default makes a `String` for `decode(postgresText:)`, and
/// the types read most (ids, times, integers, numerics) read the bytes instead
/// (`PostgresUTF8Decodable`).
public protocol PostgresDecodable: Sendable {
    /// Decodes a non-NULL value.
    static func decode(postgresText text: String) throws -> Self
    /// Decodes a value that may be NULL; only `Optional` accepts NULL.
    static func decode(nullable text: String?) throws -> Self
    /// Decodes a non-NULL value from its text's UTF-8.
    static func decode(postgresUTF8 text: UnsafeBufferPointer<UInt8>) throws -> Self
    /// Decodes a value that may be NULL (`nil`) from its text's UTF-8; only `Optional` accepts NULL.
    static func decode(nullableUTF8 text: UnsafeBufferPointer<UInt8>?) throws -> Self
}

extension PostgresDecodable {
    public static func decode(nullable text: String?) throws -> Self {
        guard let text else { throw PostgresDecodingFailure.unexpectedNull }
        return try decode(postgresText: text)
    }

    public static func decode(postgresUTF8 text: UnsafeBufferPointer<UInt8>) throws -> Self {
        try decode(postgresText: String(decoding: text, as: UTF8.self))
    }

    public static func decode(nullableUTF8 text: UnsafeBufferPointer<UInt8>?) throws -> Self {
        guard let text else { throw PostgresDecodingFailure.unexpectedNull }
        return try decode(postgresUTF8: text)
    }
}

/// A type that reads its value from the text's UTF-8: it implements `decode(postgresUTF8:)`, and
/// its `decode(postgresText:)` reads a `String`'s bytes the same way (one parser for both).
public protocol PostgresUTF8Decodable: PostgresDecodable {}

extension PostgresUTF8Decodable {
    public static func decode(postgresText text: String) throws -> Self {
        var text = text
        return try text.withUTF8 { try decode(postgresUTF8: $0) }
    }
}

/// Why a value could not be decoded; wrapped into a `PostgresError` naming the column.
public struct PostgresDecodingFailure: Error, Sendable {
    public var reason: String

    public init(_ reason: String) {
        self.reason = reason
    }

    static let unexpectedNull = PostgresDecodingFailure("unexpected NULL")
}

extension Optional: PostgresDecodable where Wrapped: PostgresDecodable {
    public static func decode(postgresText text: String) throws -> Wrapped? {
        try Wrapped.decode(postgresText: text)
    }

    public static func decode(nullable text: String?) throws -> Wrapped? {
        guard let text else { return nil }
        return try Wrapped.decode(postgresText: text)
    }

    public static func decode(postgresUTF8 text: UnsafeBufferPointer<UInt8>) throws -> Wrapped? {
        try Wrapped.decode(postgresUTF8: text)
    }

    public static func decode(nullableUTF8 text: UnsafeBufferPointer<UInt8>?) throws -> Wrapped? {
        guard let text else { return nil }
        return try Wrapped.decode(postgresUTF8: text)
    }
}

extension String: PostgresDecodable {
    public static func decode(postgresText text: String) throws -> String { text }
}

extension Bool: PostgresUTF8Decodable {
    public static func decode(postgresUTF8 text: UnsafeBufferPointer<UInt8>) throws -> Bool {
        if text.elementsEqual("t".utf8) || text.elementsEqual("true".utf8) { return true }
        if text.elementsEqual("f".utf8) || text.elementsEqual("false".utf8) { return false }
        throw PostgresDecodingFailure("not a boolean")
    }
}

extension Int: PostgresUTF8Decodable {}
extension Int64: PostgresUTF8Decodable {}
extension Int32: PostgresUTF8Decodable {}

extension PostgresUTF8Decodable where Self: FixedWidthInteger & SignedInteger {
    public static func decode(postgresUTF8 text: UnsafeBufferPointer<UInt8>) throws -> Self {
        guard let value = Self(decimalUTF8: text) else {
            throw PostgresDecodingFailure("not a \(Self.bitWidth)-bit integer")
        }
        return value
    }
}

extension FixedWidthInteger where Self: SignedInteger {
    /// A decimal integer as `Self(_: String)` reads one: an optional sign, then digits only;
    /// `nil` for anything else and beyond the type's range.
    init?(decimalUTF8 text: UnsafeBufferPointer<UInt8>) {
        var index = 0
        let negative = text.first == UInt8(ascii: "-")
        if negative || text.first == UInt8(ascii: "+") { index = 1 }
        guard index < text.count else { return nil }
        var value: Self = 0
        while index < text.count {
            let digit = text[index] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            // Negative values are built downwards, so `min` is reached without overflowing.
            let (shifted, overflowed) = value.multipliedReportingOverflow(by: 10)
            let (next, carried) =
                negative
                ? shifted.subtractingReportingOverflow(Self(digit)) : shifted.addingReportingOverflow(Self(digit))
            guard !overflowed, !carried else { return nil }
            value = next
            index += 1
        }
        self = value
    }
}

extension Double: PostgresDecodable {
    public static func decode(postgresText text: String) throws -> Double {
        guard let value = Double(text) else { throw PostgresDecodingFailure("not a number") }
        return value
    }
}

extension Decimal: PostgresUTF8Decodable {
    /// Plain numerics are read directly (the common case, and `Decimal(string:)` costs a locale
    /// lookup per call); anything else goes to Foundation.
    public static func decode(postgresUTF8 text: UnsafeBufferPointer<UInt8>) throws -> Decimal {
        if let fixed = PostgresFixedPoint(utf8: text) {
            return Decimal(
                sign: fixed.value < 0 ? .minus : .plus, exponent: -fixed.scale,
                significand: Decimal(fixed.value.magnitude))
        }
        guard let value = Decimal(string: String(decoding: text, as: UTF8.self), locale: posixLocale) else {
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

    /// Reads the text's UTF-8.
    public init?(utf8 text: UnsafeBufferPointer<UInt8>) {
        var magnitude: Int64 = 0
        var significant = 0
        var digits = 0
        var scale = 0
        var negative = false
        var fraction = false
        for offset in text.indices {
            let byte = text[offset]
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

extension UUID: PostgresUTF8Decodable {
    public static func decode(postgresUTF8 text: UnsafeBufferPointer<UInt8>) throws -> UUID {
        guard let value = UUID(hexadecimalUTF8: text) else { throw PostgresDecodingFailure("not a UUID") }
        return value
    }
}

extension Date: PostgresUTF8Decodable {
    public static func decode(postgresUTF8 text: UnsafeBufferPointer<UInt8>) throws -> Date {
        try PostgresTimestamp.parse(text)
    }
}
