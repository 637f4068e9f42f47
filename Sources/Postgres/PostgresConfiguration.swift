/// How to reach PostgreSQL and what every new connection should be.
public struct PostgresConfiguration: Sendable {
    /// A libpq connection string: `postgresql://user@host/db` or `host=/run/x dbname=spotter`.
    public var connectionString: String
    /// A role to `SET ROLE` to right after connecting, so a login that is a member of several
    /// roles works as exactly one of them. `nil` keeps the login role.
    public var role: String?
    /// Sent as `application_name`, shown in `pg_stat_activity`.
    public var applicationName: String
    /// Aborts any statement that runs longer; `nil` leaves the server default.
    public var statementTimeout: Duration?

    public init(
        connectionString: String,
        role: String? = nil,
        applicationName: String = "spotter",
        statementTimeout: Duration? = .seconds(30)
    ) {
        self.connectionString = connectionString
        self.role = role
        self.applicationName = applicationName
        self.statementTimeout = statementTimeout
    }

    /// The same server and login, another database.
    public func with(database: String) -> PostgresConfiguration {
        var copy = self
        copy.connectionString = Self.replacingDatabase(in: connectionString, with: database)
        return copy
    }

    /// The same server and database, another role (or the login role for `nil`).
    public func with(role: String?) -> PostgresConfiguration {
        var copy = self
        copy.role = role
        return copy
    }

    static func replacingDatabase(in connectionString: String, with database: String) -> String {
        if connectionString.hasPrefix("postgres://") || connectionString.hasPrefix("postgresql://") {
            // libpq lets a later `dbname` keyword override the URI's path, but only in key/value form,
            // so rewrite the path: scheme://authority/dbname?query
            let (head, query) = split(connectionString, at: "?")
            let schemeEnd = head.range(of: "://")!.upperBound
            let rest = head[schemeEnd...]
            let authority = rest.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            var result = head[..<schemeEnd] + authority + "/" + database
            if let query { result += "?" + query }
            return String(result)
        }
        let parts = connectionString.split(separator: " ").filter { !$0.hasPrefix("dbname=") }
        return (parts + ["dbname=\(database)"]).joined(separator: " ")
    }

    private static func split(_ text: String, at separator: Character) -> (String, String?) {
        guard let index = text.firstIndex(of: separator) else { return (text, nil) }
        return (String(text[..<index]), String(text[text.index(after: index)...]))
    }
}
