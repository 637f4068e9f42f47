import Foundation

/// Everything a tenant owns, as one JSON document (`spotterctl export`, and later the product's own
/// export). Secrets are never included: no password hash, no token or token hash, no e-mail
/// bodies (they hold single-use links).
public struct TenantExport: Sendable, Equatable, Codable {
    /// Always `spotter-export`.
    public var format = "spotter-export"
    /// Raised when the document's shape changes incompatibly.
    public var version = 1
    public var exportedAt: Date
    public var profile: Profile
    public var sessions: [SessionInfo]
    public var emails: [ExportedEmail]

    public init(exportedAt: Date, profile: Profile, sessions: [SessionInfo], emails: [ExportedEmail]) {
        self.exportedAt = exportedAt
        self.profile = profile
        self.sessions = sessions
        self.emails = emails
    }
}

/// An e-mail Spotter sent or will send to the tenant, without its body.
public struct ExportedEmail: Sendable, Equatable, Codable {
    public var kind: String
    public var recipient: String
    public var subject: String
    public var status: String
    public var createdAt: Date
    public var sentAt: Date?

    public init(kind: String, recipient: String, subject: String, status: String, createdAt: Date, sentAt: Date?) {
        self.kind = kind
        self.recipient = recipient
        self.subject = subject
        self.status = status
        self.createdAt = createdAt
        self.sentAt = sentAt
    }
}
