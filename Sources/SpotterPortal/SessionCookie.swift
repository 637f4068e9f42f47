import Crypto
import Foundation
import Hummingbird
import SpotterCore
import Synchronization

/// The portal's session cookie, `__Host-spotter_session`: the same session (the `sessions` row) the
/// API's tokens belong to, so revoking sessions or disabling the account ends it at once.
///
/// The value is `v1.<access token>.<refresh token>.<form key>`. The database keeps only the
/// tokens' hashes. The form key is made at sign-in and kept across refreshes; the CSRF token every
/// form posts back is derived from it, so it is bound to this session and readable by no other
/// site (the cookie is HttpOnly and sent to this host only).
struct SessionCookie: Sendable, Equatable {
    static let name = "__Host-spotter_session"

    var accessToken: String
    var refreshToken: String
    var formKey: String

    init(accessToken: String, refreshToken: String, formKey: String) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.formKey = formKey
    }

    /// A cookie for new tokens, with a new form key when none is carried over.
    init(_ tokens: IssuedTokens, formKey: String = Base64.encodeURLSafe(SecureRandom.bytes(24))) {
        self.init(accessToken: tokens.accessToken, refreshToken: tokens.refreshToken, formKey: formKey)
    }

    init?(value: String) {
        let parts = value.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "v1", parts.dropFirst().allSatisfy({ !$0.isEmpty }) else { return nil }
        self.init(accessToken: String(parts[1]), refreshToken: String(parts[2]), formKey: String(parts[3]))
    }

    var value: String { "v1.\(accessToken).\(refreshToken).\(formKey)" }

    /// The token this session's forms carry in `_csrf`.
    var csrfToken: String {
        Base64.encodeURLSafe(Array(SHA256.hash(data: Array("spotter-portal-csrf:\(formKey)".utf8))))
    }

    /// Secure, HttpOnly, SameSite=Lax, Path=/ and no Domain, as the `__Host-` prefix requires.
    /// The browser keeps it as long as the session may live; the server decides when it ends.
    func cookie(maxAge: TimeInterval) -> Cookie {
        Cookie(
            name: Self.name, value: value, maxAge: Int(maxAge), path: "/", secure: true, httpOnly: true,
            sameSite: .lax)
    }

    /// Tells the browser to forget the session.
    static let cleared = Cookie(
        name: name, value: "", maxAge: 0, path: "/", secure: true, httpOnly: true, sameSite: .lax)
}

/// The browser's device token, `__Secure-spotter_device`: what makes this browser a known device of
/// the account that last signed in on it, as an app keeps `TokenPair.device_token`. Sign-in
/// throttling counts a known device as a source of its own, so wrong passwords from others on the
/// same network do not lock it out, and signing in again keeps the same known device instead of
/// adding one each time (an account keeps 20). It outlives sign-out, as a device's token does, and
/// is sent only to the sign-in forms.
struct DeviceCookie: Sendable {
    static let name = "__Secure-spotter_device"

    /// The token in the browser's cookie, or "" when there is none or it is not a device token.
    static func token(in request: Request) -> String {
        guard let value = request.cookies[name]?.value, value.hasPrefix("spd_"), value.utf8.count <= 200 else {
            return ""
        }
        return value
    }

    /// Secure, HttpOnly, SameSite=Strict and no Domain, for the sign-in paths only; kept as long
    /// as the server remembers the device.
    static func cookie(_ token: String, maxAge: TimeInterval) -> Cookie {
        Cookie(
            name: name, value: token, maxAge: Int(maxAge), path: "/sign-in", secure: true, httpOnly: true,
            sameSite: .strict)
    }
}

/// Refreshes a session's tokens once however many of its requests find the access token expired
/// at the same moment: a refresh token used twice revokes the whole session (reuse detection), and
/// a browser sends a page's requests in parallel. Each result is kept for a minute for requests
/// that still carry the old cookie.
final class SessionRefresher: Sendable {
    private struct Entry {
        var task: Task<IssuedTokens, any Error>
        var started: Date
    }

    private let auth: AuthService
    private let now: @Sendable () -> Date
    private let entries = Mutex<[String: Entry]>([:])
    private static let keptFor: TimeInterval = 60

    init(auth: AuthService, now: @escaping @Sendable () -> Date) {
        self.auth = auth
        self.now = now
    }

    func refresh(_ refreshToken: String) async throws -> IssuedTokens {
        let key = Base64.encodeURLSafe(Token.hash(refreshToken))
        let at = now()
        let task = entries.withLock { entries in
            entries = entries.filter { at.timeIntervalSince($0.value.started) < Self.keptFor }
            if let entry = entries[key] { return entry.task }
            let task = Task { [auth] in try await auth.refresh(refreshToken: refreshToken) }
            entries[key] = Entry(task: task, started: at)
            return task
        }
        return try await task.value
    }
}

/// The invite code just made, kept by the browser for the one page view that shows it (the page
/// `POST /invites` redirects to): a code is shown once and only its hash is stored. Five minutes at
/// most; the page that shows it clears it.
struct NewInviteCookie: Sendable {
    static let name = "__Host-spotter_new_invite"

    let id: UUID
    let code: String

    init(id: UUID, code: String) {
        self.id = id
        self.code = code
    }

    /// `<invite id>.<code>`; `nil` for anything else.
    init?(_ value: String?) {
        guard let parts = value?.split(separator: ".", maxSplits: 1), parts.count == 2,
            let id = UUID(hexadecimal: String(parts[0])), let code = InviteCode.normalize(String(parts[1]))
        else { return nil }
        self.init(id: id, code: code)
    }

    var cookie: Cookie {
        Cookie(
            name: Self.name, value: "\(id.uuidString).\(code)", maxAge: 300, path: "/", secure: true, httpOnly: true,
            sameSite: .strict)
    }

    static let cleared = Cookie(
        name: name, value: "", maxAge: 0, path: "/", secure: true, httpOnly: true, sameSite: .strict)
}

/// The coach's "Inactive after N days" on the client list, kept for a year so the list opens with
/// it (from the navigation too). Only a whole number of 1–365 days is read back.
struct InactiveDaysCookie: Sendable {
    static let name = "__Host-spotter_inactive_days"

    static func days(_ value: String?) -> Int? {
        value.flatMap { Int($0) }.flatMap { (1...365).contains($0) ? $0 : nil }
    }

    static func cookie(_ days: Int) -> Cookie {
        Cookie(
            name: name, value: String(days), maxAge: 365 * 24 * 3600, path: "/", secure: true, httpOnly: true,
            sameSite: .lax)
    }

    static let cleared = Cookie(
        name: name, value: "", maxAge: 0, path: "/", secure: true, httpOnly: true, sameSite: .lax)
}
