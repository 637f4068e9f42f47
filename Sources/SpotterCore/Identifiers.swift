import Crypto
import Foundation
import ValueText

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
        guard let uuid = UUID(hexadecimal: text) else { return nil }
        self.init(rawValue: uuid)
    }

    public var description: String { rawValue.lowercasedString }

    /// A stable id for something the server creates in the principal's account on its behalf: the
    /// same namespace, kind and key in the same account give the same id, so a retried or repeated
    /// import (or follow) finds what the first one stored. Version 8 (custom) UUIDs, so never a
    /// catalog id.
    public static func derived(
        _ principal: Principal, _ kind: String, _ key: String, namespace: String = "spotter-discover"
    ) -> Self {
        derived(principal.tenantID, kind, key, namespace: namespace)
    }

    /// `derived(_:_:_:namespace:)` for a tenant the server acts for without a signed-in principal.
    public static func derived(
        _ tenant: TenantID, _ kind: String, _ key: String, namespace: String = "spotter-discover"
    ) -> Self {
        var bytes = Array(SHA256.hash(data: Array("\(namespace)\0\(tenant)\0\(kind)\0\(key)".utf8)))
        bytes[6] = (bytes[6] & 0x0F) | 0x80
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let uuid = UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9],
                bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
        return Self(rawValue: uuid)
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

/// A plain `UUID` field written in lower case in JSON, as every typed id (`EntityID`) is:
/// Foundation writes a `UUID` in upper case, so an export or spotterctl's `--json` mixed both.
@propertyWrapper
public struct LowercasedUUID: Sendable, Hashable, Codable {
    public var wrappedValue: UUID

    public init(wrappedValue: UUID) { self.wrappedValue = wrappedValue }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let uuid = UUID(hexadecimal: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a UUID"))
        }
        wrappedValue = uuid
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(wrappedValue.lowercasedString)
    }
}
