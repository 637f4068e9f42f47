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

    public var description: String { rawValue.uuidString.lowercased() }
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
