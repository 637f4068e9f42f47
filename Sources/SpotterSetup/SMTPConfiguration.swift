import Foundation

/// Where and how to deliver e-mail over SMTP.
public struct SMTPConfiguration: Sendable {
    public enum Security: String, Sendable {
        /// Upgrade with STARTTLS before authenticating; refuse servers that do not offer it.
        case startTLS = "starttls"
        /// Plain text: only for a relay on the same machine.
        case none
    }

    public var host: String
    public var port: Int
    public var security: Security
    public var username: String?
    public var password: String?
    /// A PEM file of certificates to trust instead of the system's (for a private relay).
    public var trustRootsFile: String?
    /// The name sent in EHLO.
    public var heloName: String

    public init(
        host: String,
        port: Int,
        security: Security,
        username: String? = nil,
        password: String? = nil,
        trustRootsFile: String? = nil,
        heloName: String = "spotter.localdomain"
    ) {
        self.host = host
        self.port = port
        self.security = security
        self.username = username
        self.password = password
        self.trustRootsFile = trustRootsFile
        self.heloName = heloName
    }
}
