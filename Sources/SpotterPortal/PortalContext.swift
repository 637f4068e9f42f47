import Hummingbird
import NIOCore
import SpotterCore

/// Everything a portal request carries past the router: the client's address and, once
/// `SessionMiddleware` has read the cookie, who is signed in.
public struct PortalContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The client's IP address (sign-in throttling counts attempts per address); empty in tests.
    /// `PortalMiddleware` replaces the peer's with the one a trusted proxy forwarded for.
    public internal(set) var address: String
    /// The signed-in account, when the session cookie names a live session.
    var session: PortalSession?
    /// The fields of a POSTed form (`application/x-www-form-urlencoded`); empty for other requests.
    var form = Form()
    /// The files of a `multipart/form-data` POST to a route that takes uploads, by field name.
    var uploads: [String: Upload] = [:]

    public init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
        address = source.channel.remoteAddress?.ipAddress ?? ""
    }

    /// The signed-in account; routes behind `SessionMiddleware.required` always have one.
    func signedIn() throws -> PortalSession {
        guard let session else { throw PortalError.signInRequired }
        return session
    }

    /// The signed-in session of an account of `kind`; a page of the other kind is refused.
    func signedIn(as kind: TenantKind) throws -> PortalSession {
        let session = try signedIn()
        guard session.isCoach == (kind == .coach) else { throw PortalError.wrongKind(kind) }
        return session
    }
}

/// A signed-in portal visitor.
struct PortalSession: Sendable {
    var principal: Principal
    var profile: Profile
    /// The token every form of this session posts back (see `SessionCookie.csrfToken`).
    var csrf: String

    var isCoach: Bool { profile.kind == .coach }
}
