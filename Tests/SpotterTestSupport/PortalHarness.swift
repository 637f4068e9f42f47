import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import SpotterCore
import SpotterPortal
import SpotterPostgres

/// The portal's router on a test database, with the services `spotterd` gives it and a clock the
/// test moves. Requests go through Hummingbird's router test client (no sockets).
public struct PortalHarness: Sendable {
    public let database: TestDatabase
    public let clock: TestClock
    public let auth: AuthService
    public let coaching: CoachingService
    public let training: TrainingServices
    public let client: any TestClientProtocol

    /// The portal on a fresh database, its clock at the current time. `.live` serves it on a
    /// loopback port (requests then come from 127.0.0.1); `.router` calls the router directly.
    public static func with<T: Sendable>(
        _ mode: TestingSetup = .router, trustedProxies: TrustedProxies = .none,
        _ body: @Sendable (PortalHarness) async throws -> T
    ) async throws -> T {
        try await TestDatabase.with { database in
            try await with(database, clock: TestClock(Date()), mode, trustedProxies: trustedProxies, body)
        }
    }

    /// The portal on `database`, its services on `clock`.
    public static func with<T: Sendable>(
        _ database: TestDatabase, clock: TestClock, _ mode: TestingSetup = .router,
        trustedProxies: TrustedProxies = .none, _ body: @Sendable (PortalHarness) async throws -> T
    ) async throws -> T {
        let now: @Sendable () -> Date = { clock.now }
        let auth = database.authService(clock: clock)
        let coaching = database.coachingService(clock: clock)
        let training = database.trainingServices(clock: clock)
        var logger = Logger(label: "portal-test")
        logger.logLevel = .warning
        let router = try Portal.router(
            PortalServices(
                auth: auth, accounts: database.accountService(clock: clock), coaching: coaching, training: training,
                discover: database.discoverService(clock: clock), sync: database.syncService(clock: clock),
                feedback: FeedbackService(
                    store: PostgresFeedbackStore(database: SpotterDatabase(pool: database.appPool)),
                    now: { clock.now }),
                renderer: FakePNGRenderer()),
            sessionLifetime: 90 * 86_400, trustedProxies: trustedProxies, logger: logger, now: now)
        return try await Application(router: router).test(mode) { client in
            try await body(
                PortalHarness(
                    database: database, clock: clock, auth: auth, coaching: coaching, training: training,
                    client: client))
        }
    }

    /// A browser: keeps the session cookie and posts each page's CSRF token back.
    public func browser() -> Browser { Browser(client: client) }

    /// A registered account (password `long enough <name>`).
    public func account(_ name: String, kind: TenantKind = .lifter) async throws -> Principal {
        try await database.lifter(name, kind: kind)
    }

    /// A browser signed in as `name`.
    public func signedIn(_ name: String) async throws -> Browser {
        let browser = browser()
        let response = try await browser.signIn(name, password: "long enough \(name)")
        guard response.status == .seeOther else {
            throw PortalHarnessFailure("signing in as \(name) answered \(response.status): \(response.html)")
        }
        return browser
    }

    /// The rows of `lifter`'s access log: (coach, kind, method).
    public func accessLog(_ lifter: Principal) async throws -> [String] {
        try await database.asOwner { connection in
            let rows = try await connection.query(
                "SELECT data, method FROM coach_access_log WHERE tenant_id = $1 ORDER BY access_id",
                [lifter.tenantID.rawValue])
            return try rows.map { row in
                "\(try row.decode("data", as: String.self)) \(try row.decode("method", as: String.self))"
            }
        }
    }
}

/// A step of a portal test that could not be taken.
public struct PortalHarnessFailure: Error, CustomStringConvertible {
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}

/// One response as a test reads it.
public struct PortalPage: Sendable {
    public let status: HTTPResponse.Status
    public let headers: HTTPFields
    public let html: String

    public var location: String? { headers[.location] }

    /// The session cookie's `Set-Cookie` line, when the response sets one.
    public var sessionCookie: String? {
        headers[values: .setCookie].first { $0.hasPrefix("__Host-spotter_session=") }
    }

    /// How many times `text` occurs in the body.
    public func count(_ text: String) -> Int { html.components(separatedBy: text).count - 1 }
}

/// A cookie jar for the portal's cookies, and the CSRF token of the last page seen.
public final class Browser: @unchecked Sendable {
    let client: any TestClientProtocol
    private let lock = NSLock()
    private var cookieValue: String?
    /// Cookies other than the session's, by name.
    private var others: [String: String] = [:]
    private var lastCSRF = ""
    private var refererValue: String?

    public init(client: any TestClientProtocol) {
        self.client = client
    }

    public var cookie: String? {
        get { lock.withLock { cookieValue } }
        set { lock.withLock { cookieValue = newValue } }
    }

    public var csrf: String { lock.withLock { lastCSRF } }

    /// The `Referer` sent with every request, when set (a browser's page the request came from).
    public var referer: String? {
        get { lock.withLock { refererValue } }
        set { lock.withLock { refererValue = newValue } }
    }

    /// Sets a cookie other than the session's, as if an earlier response had.
    public func setCookie(_ name: String, _ value: String) {
        lock.withLock { others[name] = value }
    }

    @discardableResult
    public func get(_ path: String) async throws -> PortalPage {
        try await send(path, method: .get, body: nil)
    }

    /// POSTs `fields`, with the last page's CSRF token unless `csrf` says otherwise.
    @discardableResult
    public func post(_ path: String, _ fields: [(String, String)] = [], csrf: String? = nil) async throws -> PortalPage
    {
        let token = csrf ?? self.csrf
        let all = (token.isEmpty && csrf == nil ? [] : [("_csrf", token)]) + fields
        let body = all.map { "\(encode($0.0))=\(encode($0.1))" }.joined(separator: "&")
        return try await send(
            path, method: .post, body: ByteBuffer(string: body), contentType: "application/x-www-form-urlencoded")
    }

    /// POSTs `fields` and `files` (field name, file name, bytes) as `multipart/form-data`, as a
    /// browser sends a form with a file input, with the last page's CSRF token.
    @discardableResult
    public func upload(_ path: String, _ fields: [(String, String)], files: [(String, String, Data)]) async throws
        -> PortalPage
    {
        let boundary = "----spotter-test-\(UUID().uuidString)"
        var body = Data()
        for (name, value) in [("_csrf", csrf)] + fields {
            body += Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8)
        }
        for (name, filename, data) in files {
            body += Data(
                "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"; filename=\"\(filename)\"\r\nContent-Type: text/csv\r\n\r\n"
                    .utf8)
            body += data + Data("\r\n".utf8)
        }
        body += Data("--\(boundary)--\r\n".utf8)
        return try await send(
            path, method: .post, body: ByteBuffer(bytes: body), contentType: "multipart/form-data; boundary=\(boundary)"
        )
    }

    public func signIn(_ login: String, password: String) async throws -> PortalPage {
        try await get("/sign-in")
        return try await post("/sign-in", [("login", login), ("password", password)])
    }

    private func send(
        _ path: String, method: HTTPRequest.Method, body: ByteBuffer?, contentType: String? = nil
    ) async throws -> PortalPage {
        var headers: HTTPFields = [:]
        let sent = lock.withLock {
            (cookieValue.map { ["__Host-spotter_session=\($0)"] } ?? [])
                + others.sorted { $0.key < $1.key }
                .map { "\($0.key)=\($0.value)" }
        }
        if !sent.isEmpty { headers[.cookie] = sent.joined(separator: "; ") }
        if let contentType { headers[.contentType] = contentType }
        if let referer { headers[.referer] = referer }
        let response = try await client.execute(uri: path, method: method, headers: headers, body: body)
        let page = PortalPage(status: response.status, headers: response.headers, html: String(buffer: response.body))
        for line in page.headers[values: .setCookie] {
            let pair = line.prefix { $0 != ";" }
            guard let equals = pair.firstIndex(of: "=") else { continue }
            let name = String(pair[..<equals])
            let value = String(pair[pair.index(after: equals)...])
            let kept = value.isEmpty || line.contains("Max-Age=0") ? nil : value
            lock.withLock {
                if name == "__Host-spotter_session" { cookieValue = kept } else { others[name] = kept }
            }
        }
        if let range = page.html.range(of: #"name="_csrf" value="([^"]*)""#, options: .regularExpression) {
            let token = page.html[range].dropFirst(#"name="_csrf" value=""#.count).dropLast()
            lock.withLock { lastCSRF = String(token) }
        }
        return page
    }

    private func encode(_ text: String) -> String {
        text.addingPercentEncoding(
            withAllowedCharacters: CharacterSet(
                charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")) ?? ""
    }
}
