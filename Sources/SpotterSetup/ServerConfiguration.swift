import Foundation
import Logging
import SpotterCore

/// `127.0.0.1:9464` or `[::1]:9464` as its host (brackets removed) and port; `nil` when it is not
/// `host:port` with a port from 0 to 65535.
public func hostAndPort(_ address: String) -> (host: String, port: Int)? {
    guard let colon = address.lastIndex(of: ":"), colon != address.startIndex,
        let port = Int(address[address.index(after: colon)...]), (0...65535).contains(port)
    else { return nil }
    return (address[..<colon].trimmingCharacters(in: CharacterSet(charactersIn: "[]")), port)
}

/// How log lines are written.
public enum LogFormat: String, Sendable {
    /// swift-log's text lines, for a terminal.
    case text
    /// One JSON object per line, for log collectors.
    case json

    /// Makes `LoggingSystem` write lines in this format at `level` and above.
    public func bootstrap(level: Logger.Level) {
        switch self {
        case .text:
            LoggingSystem.bootstrap { label in
                var handler = StreamLogHandler.standardError(label: label)
                handler.logLevel = level
                return handler
            }
        case .json:
            LoggingSystem.bootstrap { label in JSONLogHandler(label: label, level: level) }
        }
    }
}

/// Everything `spotterd` and `spotterctl` read from the environment, read once at start-up.
/// Nothing below the wiring reads the environment.
public struct ServerConfiguration: Sendable {
    /// Where the database is.
    public enum DatabaseLocation: Sendable, Equatable {
        /// A libpq connection string or URL given by the operator.
        case external(String)
        /// A private cluster under `dataDirectory/postgres`, started and stopped by Spotter.
        case embedded
    }

    public var database: DatabaseLocation
    /// With an external database, the login spotterd works as once migrations are done
    /// (`SPOTTER_SERVER_DATABASE_URL`): not the owner, inheriting nothing, allowed only to switch to
    /// the application and mailer roles. `nil` works as the owner login of `database`.
    public var serverDatabaseURL: String?
    /// Keeps the embedded cluster, the development certificate and other local state.
    public var dataDirectory: URL
    /// The role request work runs as (`SET ROLE` after connecting).
    public var applicationRole: String
    /// The role `spotterctl` works as.
    public var adminRole: String
    public var poolSize: Int
    public var migrationsDirectory: URL
    /// Directory with `initdb`, `pg_ctl` and `postgres` for the embedded cluster; `nil` searches.
    public var postgresBinDirectory: String?
    public var host: String
    public var port: Int
    /// PEM certificate chain and key; `nil` creates a self-signed development certificate.
    public var tlsCertificatePath: String?
    public var tlsKeyPath: String?
    public var logLevel: Logger.Level
    /// Where the coach portal is served over HTTPS (same host as gRPC by default, port 8444);
    /// `nil` turns it off.
    public var portalPort: Int? = 8444
    /// Where `GET /metrics` is served (`host:port`); `nil` serves no metrics.
    public var metricsAddress: (host: String, port: Int)? = ("127.0.0.1", 9464)
    /// Peers whose `x-forwarded-for` metadata names the client (throttling and logs).
    public var trustedProxies = TrustedProxies.none
    /// `text` (the default) or `json`: one JSON object per line (see `JSONLogHandler`).
    public var logFormat: LogFormat = .text
    public var auth: AuthPolicy
    public var passwordCost: PasswordHasher.Cost
    /// Password checks that may wait for one of the two scrypt slots; more are refused at once.
    public var passwordQueue: Int = 16
    /// Run pending migrations when `spotterd` starts.
    public var migrateOnStart: Bool
    /// How to deliver e-mail; `nil` writes e-mails to the log instead (development).
    public var smtp: SMTPConfiguration?
    /// The sender address of every e-mail.
    public var mailFrom: String
    /// The role the mailer works as: it sees every tenant's outbox and nothing else.
    public var mailerRole: String
    /// How often the mailer looks for due e-mail.
    public var mailerInterval: Duration
    /// How long deleted objects stay in the sync feed; a device away longer pulls from scratch.
    public var syncRetentionDays: Int = 30
    /// How long a coach's reads stay in the lifter's access log.
    public var accessLogRetentionDays: Int = 365
    /// Open Watch streams allowed per account on each server process.
    public var watchStreamsPerTenant: Int = 10
    /// Write each lifter's awards after every change of their feed, so devices learn of them through
    /// sync and Watch; off, awards are written only when `ListAchievements` is called.
    public var achievementFeed = true
    /// How often an open Watch stream checks that its access token is still valid.
    public var watchSessionCheckInterval: Duration = .seconds(60)
    /// Limits of the gRPC listener (streams, idle connections, handshakes, request size).
    public var transport = TransportLimits()
    /// Where the keys that seal two-factor secrets come from (see `MfaKeys`).
    public var mfaKeys = MfaKeys.generated

    /// Reads the documented `SPOTTER_*` variables (see the README); unknown values are errors.
    public static func fromEnvironment(
        _ environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> ServerConfiguration {
        let reader = EnvironmentReader(environment)
        let dataDirectory = URL(fileURLWithPath: reader.string("SPOTTER_DATA_DIR") ?? defaultDataDirectory())
        var auth = AuthPolicy()
        let port = try reader.integer("SPOTTER_GRPC_PORT", default: 8443, range: 0...65535)
        var portalPort: Int? = 8444
        if let text = reader.string("SPOTTER_PORTAL_PORT") {
            guard text.lowercased() == "off" || Int(text).map((0...65535).contains) == true else {
                throw ConfigurationError(
                    variable: "SPOTTER_PORTAL_PORT", reason: "must be a port from 0 to 65535 or off")
            }
            portalPort = Int(text)
        }
        // E-mailed links (password reset) open the portal when it runs.
        // Without the portal and a public address of one elsewhere, e-mails and spotterctl give
        // the code alone: a link to the gRPC port opened no page.
        auth.publicURL =
            try reader.publicURL("SPOTTER_PUBLIC_URL") ?? portalPort.map { "https://localhost:\($0)" } ?? ""
        var configuration = ServerConfiguration(
            database: reader.string("SPOTTER_DATABASE_URL").map(DatabaseLocation.external) ?? .embedded,
            dataDirectory: dataDirectory,
            applicationRole: reader.string("SPOTTER_DATABASE_ROLE") ?? "spotter_app",
            adminRole: reader.string("SPOTTER_ADMIN_ROLE") ?? "spotter_admin",
            poolSize: try reader.integer("SPOTTER_DATABASE_POOL_SIZE", default: 10, range: 1...500),
            migrationsDirectory: URL(fileURLWithPath: reader.string("SPOTTER_MIGRATIONS_DIR") ?? defaultMigrations()),
            postgresBinDirectory: reader.string("SPOTTER_POSTGRES_BIN"),
            host: reader.string("SPOTTER_GRPC_HOST") ?? "127.0.0.1",
            port: port,
            tlsCertificatePath: reader.string("SPOTTER_TLS_CERT"),
            tlsKeyPath: reader.string("SPOTTER_TLS_KEY"),
            logLevel: try reader.logLevel("SPOTTER_LOG_LEVEL"),
            auth: auth,
            passwordCost: PasswordHasher.Cost(
                logN: try reader.integer("SPOTTER_SCRYPT_LOG_N", default: 17, range: 10...22),
                blockSize: 8,
                parallelism: 1
            ),
            migrateOnStart: try reader.boolean("SPOTTER_MIGRATE_ON_START", default: true),
            smtp: try reader.smtp(),
            mailFrom: try reader.mailAddress("SPOTTER_MAIL_FROM") ?? "no-reply@localhost",
            mailerRole: reader.string("SPOTTER_MAILER_ROLE") ?? "spotter_mailer",
            mailerInterval: .milliseconds(
                try reader.integer("SPOTTER_MAILER_INTERVAL_MS", default: 2000, range: 10...600_000))
        )
        if let inline = reader.string("SPOTTER_MFA_KEYS") {
            configuration.mfaKeys = .inline(inline)
        } else if let file = reader.string("SPOTTER_MFA_KEYS_FILE") {
            configuration.mfaKeys = .file(file)
        }
        configuration.portalPort = portalPort
        configuration.serverDatabaseURL = reader.string("SPOTTER_SERVER_DATABASE_URL")
        // spotterd given only its own login (not the owner's password) works through it alone; the
        // owner's login then migrates (`spotterctl migrate apply`), not spotterd.
        if let server = configuration.serverDatabaseURL, configuration.database == .embedded {
            guard !configuration.migrateOnStart else {
                throw ConfigurationError(
                    variable: "SPOTTER_MIGRATE_ON_START",
                    reason:
                        "must be false with SPOTTER_SERVER_DATABASE_URL and no SPOTTER_DATABASE_URL: migrations need the owner's login (run spotterctl migrate apply with it)"
                )
            }
            configuration.database = .external(server)
        }
        configuration.logFormat = try reader.logFormat("SPOTTER_LOG_FORMAT")
        if let address = reader.string("SPOTTER_METRICS_ADDRESS") {
            if address.lowercased() == "off" {
                configuration.metricsAddress = nil
            } else if let parsed = hostAndPort(address) {
                configuration.metricsAddress = parsed
            } else {
                throw ConfigurationError(
                    variable: "SPOTTER_METRICS_ADDRESS", reason: "must be host:port (such as 127.0.0.1:9464) or off")
            }
        }
        if let proxies = reader.string("SPOTTER_TRUSTED_PROXIES") {
            do {
                configuration.trustedProxies = try TrustedProxies(parsing: proxies)
            } catch {
                throw ConfigurationError(variable: "SPOTTER_TRUSTED_PROXIES", reason: error.description)
            }
        }
        configuration.passwordQueue = try reader.integer("SPOTTER_SCRYPT_QUEUE", default: 16, range: 0...10_000)
        configuration.syncRetentionDays = try reader.integer(
            "SPOTTER_SYNC_RETENTION_DAYS", default: 30, range: 1...3650)
        configuration.accessLogRetentionDays = try reader.integer(
            "SPOTTER_ACCESS_LOG_RETENTION_DAYS", default: 365, range: 1...36500)
        configuration.watchStreamsPerTenant = try reader.integer(
            "SPOTTER_SYNC_WATCH_LIMIT", default: 10, range: 1...1000)
        configuration.achievementFeed = try reader.boolean("SPOTTER_ACHIEVEMENT_FEED", default: true)
        configuration.transport.callDeadline = .seconds(
            try reader.integer("SPOTTER_RPC_DEADLINE_SECONDS", default: 30, range: 1...3600))
        configuration.transport.maxConcurrentStreams = try reader.integer(
            "SPOTTER_GRPC_MAX_STREAMS", default: 100, range: 1...10_000)
        configuration.transport.maxIdleTime = .seconds(
            try reader.integer("SPOTTER_GRPC_IDLE_SECONDS", default: 300, range: 1...86_400))
        configuration.transport.idleCloseGrace = .seconds(
            try reader.integer("SPOTTER_GRPC_IDLE_GRACE_SECONDS", default: 30, range: 1...3600))
        configuration.transport.handshakeTimeout = .seconds(
            try reader.integer("SPOTTER_TLS_HANDSHAKE_SECONDS", default: 10, range: 1...300))
        configuration.transport.maxRequestBytes = try reader.integer(
            "SPOTTER_GRPC_MAX_REQUEST_BYTES", default: 4 * 1024 * 1024, range: 1024...(64 * 1024 * 1024))
        configuration.transport.maxConnections = try reader.integer(
            "SPOTTER_GRPC_MAX_CONNECTIONS", default: 4096, range: 1...1_000_000)
        configuration.transport.maxConnectionsPerAddress = try reader.integer(
            "SPOTTER_GRPC_MAX_CONNECTIONS_PER_ADDRESS", default: 256, range: 1...1_000_000)
        configuration.watchSessionCheckInterval = .seconds(
            try reader.integer("SPOTTER_SYNC_WATCH_CHECK_SECONDS", default: 60, range: 1...900))
        if (configuration.tlsCertificatePath == nil) != (configuration.tlsKeyPath == nil) {
            throw ConfigurationError(
                variable: "SPOTTER_TLS_CERT", reason: "set both SPOTTER_TLS_CERT and SPOTTER_TLS_KEY")
        }
        return configuration
    }

    /// `/var/lib/spotter` for root, `~/.local/share/spotter` for anyone else.
    static func defaultDataDirectory() -> String {
        if getuid() == 0 { return "/var/lib/spotter" }
        let home = ProcessInfo.processInfo.environment["HOME"] ?? NSTemporaryDirectory()
        return home + "/.local/share/spotter"
    }

    /// `Migrations/` of the source tree this binary was built from, else beside the binary.
    static func defaultMigrations() -> String {
        let source = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Migrations")
        if FileManager.default.fileExists(atPath: source.path) { return source.path }
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        return executable.deletingLastPathComponent().appendingPathComponent("../share/spotter/Migrations").path
    }
}

/// A configuration value that cannot be used.
public struct ConfigurationError: Error, CustomStringConvertible {
    public var variable: String
    public var reason: String

    public var description: String { "\(variable): \(reason)" }
}

private struct EnvironmentReader {
    let environment: [String: String]

    init(_ environment: [String: String]) {
        self.environment = environment
    }

    func string(_ name: String) -> String? {
        guard let value = environment[name]?.trimmingWhitespaces(), !value.isEmpty else { return nil }
        return value
    }

    func integer(_ name: String, default fallback: Int, range: ClosedRange<Int>) throws -> Int {
        guard let text = string(name) else { return fallback }
        guard let value = Int(text), range.contains(value) else {
            throw ConfigurationError(
                variable: name, reason: "must be an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    func boolean(_ name: String, default fallback: Bool) throws -> Bool {
        guard let text = string(name)?.lowercased() else { return fallback }
        switch text {
        case "1", "true", "yes", "on": return true
        case "0", "false", "no", "off": return false
        default: throw ConfigurationError(variable: name, reason: "must be true or false")
        }
    }

    func smtp() throws -> SMTPConfiguration? {
        guard let host = string("SPOTTER_SMTP_HOST") else { return nil }
        let securityText = string("SPOTTER_SMTP_SECURITY") ?? "starttls"
        guard let security = SMTPConfiguration.Security(rawValue: securityText.lowercased()) else {
            throw ConfigurationError(variable: "SPOTTER_SMTP_SECURITY", reason: "must be starttls or none")
        }
        if string("SPOTTER_SMTP_USERNAME") != nil, security == .none {
            throw ConfigurationError(
                variable: "SPOTTER_SMTP_SECURITY",
                reason: "must be starttls when SPOTTER_SMTP_USERNAME is set: a password is never sent in plain text"
            )
        }
        // Read when the first e-mail goes out: a file that is not there would fail every send.
        let trustRoots = string("SPOTTER_SMTP_CA_FILE")
        if let trustRoots, !FileManager.default.isReadableFile(atPath: trustRoots) {
            throw ConfigurationError(
                variable: "SPOTTER_SMTP_CA_FILE", reason: "\(trustRoots) is not a file this process can read")
        }
        return SMTPConfiguration(
            host: host,
            port: try integer("SPOTTER_SMTP_PORT", default: 587, range: 1...65535),
            security: security,
            username: string("SPOTTER_SMTP_USERNAME"),
            password: string("SPOTTER_SMTP_PASSWORD"),
            trustRootsFile: trustRoots,
            heloName: try hostName("SPOTTER_SMTP_HELO") ?? "spotter.localdomain"
        )
    }

    func logFormat(_ name: String) throws -> LogFormat {
        guard let text = string(name)?.lowercased() else { return .text }
        guard let format = LogFormat(rawValue: text) else {
            throw ConfigurationError(variable: name, reason: "must be text or json")
        }
        return format
    }

    /// An e-mail address for the envelope and the `From:` header: `local@domain`, printable
    /// ASCII without spaces or angle brackets, so it cannot end an SMTP command or a header early.
    func mailAddress(_ name: String) throws -> String? {
        guard let text = string(name) else { return nil }
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty,
            text.unicodeScalars.allSatisfy({ (33...126).contains($0.value) && $0 != "<" && $0 != ">" })
        else {
            throw ConfigurationError(
                variable: name,
                reason: "must be one e-mail address such as no-reply@example.com (no spaces, angle brackets or names)")
        }
        return text
    }

    /// The portal's address as e-mailed links start with it: `http(s)://host[:port][/path]`, no
    /// query, fragment or space; a trailing `/` is dropped (links add `/reset-password?…`).
    func publicURL(_ name: String) throws -> String? {
        guard let text = string(name) else { return nil }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http",
            let host = url.host, !host.isEmpty, url.query == nil, url.fragment == nil, url.user == nil,
            !text.unicodeScalars.contains(where: { $0.value <= 32 || $0.value >= 127 })
        else {
            throw ConfigurationError(
                variable: name,
                reason: "must be the portal's address such as https://spotter.example.com (http or https, no query)")
        }
        return text.hasSuffix("/") ? String(text.dropLast()) : text
    }

    /// A host name as `EHLO` sends it: letters, digits, hyphens and dots, at most 255 characters.
    func hostName(_ name: String) throws -> String? {
        guard let text = string(name) else { return nil }
        let allowed = text.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."):
                true
            default: false
            }
        }
        guard allowed, text.utf8.count <= 255, !text.hasPrefix("."), !text.contains("..")
        else {
            throw ConfigurationError(
                variable: name,
                reason: "must be a host name (letters, digits, hyphens and dots) such as mail.example.com")
        }
        return text
    }

    func logLevel(_ name: String) throws -> Logger.Level {
        guard let text = string(name)?.lowercased() else { return .info }
        guard let level = Logger.Level(rawValue: text) else {
            throw ConfigurationError(
                variable: name, reason: "must be trace, debug, info, notice, warning, error or critical")
        }
        return level
    }
}
