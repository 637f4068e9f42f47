import Foundation
import Logging
import Postgres
import SpotterCore
import SpotterPostgres
import Synchronization

/// A clock a test can move.
public final class TestClock: Sendable {
    private let current: Mutex<Date>

    public init(_ start: Date = Date()) {
        current = Mutex(start)
    }

    public var now: Date { current.withLock { $0 } }

    public func advance(by seconds: TimeInterval) {
        current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }
}

extension TestDatabase {
    /// An `AuthService` on this database with cheap password hashing.
    /// A fixed keyring for two-factor secrets in tests.
    public static let testKeyring = try! MfaKeyring(
        parsing: "t1:" + Data(repeating: 7, count: 32).base64EncodedString(), source: "tests")

    public func authService(
        clock: TestClock? = nil, policy: AuthPolicy = AuthPolicy(),
        hasher: PasswordHasher = PasswordHasher(cost: .testing), pool: PostgresPool? = nil
    ) -> AuthService {
        AuthService(
            store: PostgresAuthStore(database: SpotterDatabase(pool: pool ?? appPool)),
            hasher: hasher,
            keyring: Self.testKeyring,
            policy: policy,
            now: { clock?.now ?? Date() },
            logger: Logger(label: "test")
        )
    }

    /// The single-use code of the newest e-mail of `kind` to `recipient`, read from the outbox.
    public func emailedCode(to recipient: String, kind: String) async throws -> String? {
        let owner = try await ownerConnection()
        defer { Task { await owner.close() } }
        let rows = try await owner.query(
            "SELECT body FROM email_outbox WHERE recipient = $1 AND kind = $2 ORDER BY created_at DESC LIMIT 1",
            [recipient, kind]
        )
        guard let body = try rows.single?.decode("body", as: String.self),
            let range = body.range(of: "code in the app: ")
        else { return nil }
        return String(body[range.upperBound...].prefix { !$0.isWhitespace })
    }

    /// Counts rows past row-level security.
    public func count(_ sql: String, _ parameters: [any PostgresEncodable] = []) async throws -> Int {
        try await asOwner { try await $0.query(sql, parameters).single!.decode(0) }
    }

    /// The tables with a `tenant_id` column (from the catalog, so a new table is never forgotten)
    /// that still hold rows of `tenant`, past row-level security.
    public func tablesHoldingRows(of tenant: TenantID) async throws -> [String] {
        try await asOwner { owner in
            let tables = try await owner.query(
                """
                SELECT c.relname FROM pg_class c
                JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'tenant_id'
                WHERE c.relkind = 'r' AND c.relnamespace = 'public'::regnamespace
                """
            ).map { try $0.decode("relname", as: String.self) }
            var holding: [String] = []
            for table in tables {
                let left: Int = try await owner.query(
                    "SELECT count(*)::int FROM \(table) WHERE tenant_id = $1", [tenant.rawValue]
                ).single!.decode(0)
                if left > 0 { holding.append(table) }
            }
            return holding
        }
    }

    /// Runs `body` on a new connection as the owner, past row-level security, and closes it.
    @discardableResult
    public func asOwner<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        let owner = try await ownerConnection()
        defer { Task { await owner.close() } }
        return try await body(owner)
    }

    /// Runs `body` as `spotter_app` in a transaction acting as `tenant`, under row-level security,
    /// with PostgreSQL's errors as they are.
    @discardableResult
    public func asTenant<T: Sendable>(_ tenant: TenantID, _ body: (PostgresConnection) async throws -> T)
        async throws -> T
    {
        try await appPool.withTransaction { connection in
            try await connection.query("SELECT set_config('spotter.tenant_id', $1, true)", [tenant.rawValue])
            return try await body(connection)
        }
    }
}

extension SignInResult {
    /// The session of a sign-in that needed no second factor; stops the test when it asked for one.
    public var tokens: IssuedTokens {
        guard case .signedIn(let tokens) = self else { preconditionFailure("the sign-in asked for a second factor") }
        return tokens
    }

    public var principal: Principal { tokens.principal }
    public var accessToken: String { tokens.accessToken }
    public var refreshToken: String { tokens.refreshToken }
    public var deviceToken: String? { tokens.deviceToken }
}
