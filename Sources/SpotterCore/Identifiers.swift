import Foundation

/// A strongly typed identifier: a `TenantID` can never be passed where an `AccountID` is expected.
public protocol EntityID: Hashable, Sendable, CustomStringConvertible, Codable {
    var rawValue: UUID { get }
    init(rawValue: UUID)
}

extension EntityID {
    /// A new random identifier.
    public static func random() -> Self { Self(rawValue: UUID()) }

    /// Parses the canonical UUID text form; `nil` when it is not a UUID.
    public init?(_ text: String) {
        guard let uuid = UUID(uuidString: text) else { return nil }
        self.init(rawValue: uuid)
    }

    public var description: String { rawValue.lowercasedString }
}

extension UUID {
    /// The lowercase 8-4-4-4-12 form every id takes on the wire. Written directly: Foundation's
    /// `uuidString` formats through `snprintf`, a visible cost when a pull maps thousands of ids.
    public var lowercasedString: String {
        let digits: StaticString = "0123456789abcdef"
        return withUnsafeBytes(of: uuid) { bytes in
            String(unsafeUninitializedCapacity: 36) { out in
                digits.withUTF8Buffer { digits in
                    var position = 0
                    for (index, byte) in bytes.enumerated() {
                        if index == 4 || index == 6 || index == 8 || index == 10 {
                            out[position] = UInt8(ascii: "-")
                            position += 1
                        }
                        out[position] = digits[Int(byte >> 4)]
                        out[position + 1] = digits[Int(byte & 0x0f)]
                        position += 2
                    }
                    return position
                }
            }
        }
    }
}

/// A lifter or coach: the unit of data ownership.
public struct TenantID: EntityID {
    public let rawValue: UUID
    public init(rawValue: UUID) { self.rawValue = rawValue }
}

/// A sign-in identity inside a tenant.
public struct AccountID: EntityID {
    public let rawValue: UUID
    public init(rawValue: UUID) { self.rawValue = rawValue }
}

/// A signed-in device.
public struct SessionID: EntityID {
    public let rawValue: UUID
    public init(rawValue: UUID) { self.rawValue = rawValue }
}

extension EntityID {
    /// Encodes as the plain UUID string, as clients and scripts expect.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        self.init(rawValue: try container.decode(UUID.self))
    }
}
