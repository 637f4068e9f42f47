import Foundation
import HTTPTypes
import Hummingbird
import Logging
import SpotterCore

/// Why the portal refused a request, before any service was asked.
enum PortalError: Error, Equatable {
    /// The page needs a signed-in account and the request has no live session.
    case signInRequired
    /// A state-changing request without this session's CSRF token.
    case forgedForm
    /// A page of the other kind of account (a lifter asking for a coach page, or the reverse).
    case wrongKind(TenantKind)
    /// A form value that is not what the page sent (a malformed id, a page number in words).
    case badRequest(String)
}

/// Reads the session cookie of every request and turns every failure into a page.
///
/// A live access token names the principal; an expired one is refreshed (once per session, see
/// `SessionRefresher`) and the cookie replaced; a revoked session or a disabled account leaves the
/// request signed out and the cookie cleared. Errors become pages in words a coach understands,
/// with the status a browser and a test can see: 404 for anything the caller may not see or that
/// does not exist (the same page for both), 403 for a refused scope or form, 429 when throttled.
struct PortalMiddleware: RouterMiddleware {
    typealias Context = PortalContext

    /// The routes that take a `multipart/form-data` file (up to an import's size); every other
    /// form is url-encoded and at most 64 kB.
    static let uploadPaths: Set<String> = ["/import"]

    let auth: AuthService
    let accounts: AccountService
    let refresher: SessionRefresher
    let pages: Pages
    let sessionLifetime: TimeInterval
    /// Proxies whose `X-Forwarded-For` names the client (`SPOTTER_TRUSTED_PROXIES`, as for gRPC).
    let trustedProxies: TrustedProxies
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        var context = context
        let viaProxy = trustedProxies.trusts(context.address)
        context.address = trustedProxies.clientAddress(
            peer: context.address, forwardedFor: request.headers[values: .xForwardedFor])
        var renewed: SessionCookie?
        var stale = false
        do {
            if let value = request.cookies[SessionCookie.name]?.value {
                if let cookie = SessionCookie(value: value), let (session, newCookie) = try await resolve(cookie) {
                    context.session = session
                    renewed = newCookie
                } else {
                    stale = true
                }
            }
            if request.method == .post {
                if Self.uploadPaths.contains(request.uri.path),
                    let boundary = Form.boundary(request.headers[.contentType])
                {
                    let body: ByteBuffer
                    do {
                        body = try await request.body.collect(upTo: Form.maximumUploadSize)
                    } catch {
                        throw PortalError.badRequest(
                            "The file is larger than Spotter accepts (\(TransferService.maxImportBytes >> 20) MB).")
                    }
                    guard let (form, files) = Form.multipart(Array(body.readableBytesView), boundary: boundary) else {
                        throw PortalError.badRequest("The upload could not be read. Choose the file again and send it.")
                    }
                    context.form = form
                    context.uploads = files
                } else {
                    context.form = try await Form.read(request)
                }
                if context.session != nil {
                    try checkForm(context)
                } else {
                    try checkOrigin(request, viaProxy: viaProxy)
                }
            }
            var response = try await next(request, context)
            // A route that signed in or out set the cookie itself.
            let setsSession = response.headers[values: .setCookie].contains { $0.hasPrefix(SessionCookie.name + "=") }
            if !setsSession {
                if let renewed {
                    response.setCookie(renewed.cookie(maxAge: sessionLifetime))
                } else if stale {
                    response.setCookie(SessionCookie.cleared)
                }
            }
            response.headers[.cacheControl] = response.headers[.cacheControl] ?? "no-store"
            return response
        } catch {
            var response = errorResponse(error, request: request, session: context.session, form: context.form)
            if stale { response.setCookie(SessionCookie.cleared) }
            response.headers[.cacheControl] = "no-store"
            return response
        }
    }

    /// The session the cookie names and, when its tokens were refreshed, the cookie to send back.
    private func resolve(_ cookie: SessionCookie) async throws -> (PortalSession, SessionCookie?)? {
        var cookie = cookie
        var renewed: SessionCookie?
        let principal: Principal
        do {
            principal = try await auth.authenticate(accessToken: cookie.accessToken)
        } catch SpotterError.unauthenticated {
            do {
                let tokens = try await refresher.refresh(cookie.refreshToken)
                cookie = SessionCookie(tokens, formKey: cookie.formKey)
                renewed = cookie
                principal = try await auth.authenticate(accessToken: tokens.accessToken)
            } catch SpotterError.unauthenticated {
                return nil
            }
        }
        let profile = try await accounts.profile(principal)
        return (PortalSession(principal: principal, profile: profile, csrf: cookie.csrfToken), renewed)
    }

    /// A POST without a session (sign-in, its second factor, password reset) has no session to bind
    /// a token to: it is refused when the browser says it came from another site (`Sec-Fetch-Site`,
    /// or an `Origin` other than this host), so no other site can sign a visitor in to an account
    /// of its choosing. Clients that send neither header (curl) are let through. Behind a trusted
    /// proxy the site's host is the one the proxy forwarded (`X-Forwarded-Host`), if it did.
    private func checkOrigin(_ request: Request, viaProxy: Bool) throws {
        if let site = request.headers[.secFetchSite], !["same-origin", "none"].contains(site.lowercased()) {
            throw PortalError.forgedForm
        }
        if let origin = request.headers[.origin] {
            let host = URLComponents(string: origin).flatMap { components in
                components.host.map { host in components.port.map { "\(host):\($0)" } ?? host }
            }
            let forwarded = viaProxy ? request.headers[.xForwardedHost]?.split(separator: ",").first : nil
            let site = forwarded.map { $0.trimmingWhitespaces() } ?? request.head.authority
            guard let host, host.lowercased() == site?.lowercased() else {
                throw PortalError.forgedForm
            }
        }
    }

    /// Where a coach goes on from a client's page that is closed (not shared, or past the tier's
    /// clients): the client list, where a paused client's row offers to end the coaching. (No link
    /// names the client: a refusal carries no other tenant's id.) None off a client's pages.
    static func clientLinks(_ request: Request, _ session: PortalSession?) -> [(String, String)] {
        guard session?.isCoach == true, request.uri.path.hasPrefix("/clients/") else { return [] }
        return [("/clients", "Back to your clients")]
    }

    /// Every POST of a signed-in session carries the session's CSRF token in `_csrf`.
    private func checkForm(_ context: Context) throws {
        guard let sent = context.form["_csrf"], let session = context.session,
            ConstantTime.equal(Array(sent.utf8), Array(session.csrf.utf8))
        else { throw PortalError.forgedForm }
    }

    private func errorResponse(_ error: any Error, request: Request, session: PortalSession?, form: Form) -> Response {
        switch error {
        case PortalError.signInRequired, SpotterError.unauthenticated:
            guard request.method == .post else {
                return .redirect(to: "/sign-in?next=" + Form.encode(request.uri.description), type: .normal)
            }
            // Signing out of a session that has already ended: done.
            if request.uri.path == "/sign-out" { return .redirect(to: "/sign-in?signed-out=1", type: .normal) }
            // A form sent after the session ended (signed out in another tab, revoked, expired):
            // nothing was changed; sign-in leads back to the page it came from, and what was typed
            // is shown so it need not be typed again.
            let page = SessionRoutes.sessionEnded(form, from: request.headers[.referer])
            return pages.render("sign_in", title: "Sign in", session: nil, status: .unauthorized, page)
        case PortalError.forgedForm where request.method == .post && request.uri.path == "/sign-out" && session != nil:
            // A stale token from an older tab: asked again with this session's, never left signed in
            // while believing otherwise.
            return pages.render("sign_out", title: "Sign out", session: session, status: .forbidden, [String: String]())
        case PortalError.forgedForm where session == nil:
            // Signed out: the form came from another site (`checkOrigin`), not from an old page.
            return pages.problem(
                .forbidden, session: nil, title: "Sent from another site",
                message:
                    "This form was sent from another site, so nothing was done. Open Spotter's own page and send it from there."
            )
        case PortalError.forgedForm:
            return pages.problem(
                .forbidden, session: session, title: "This form has expired",
                message:
                    "The form was not sent from this signed-in page, so nothing was changed. Go back, reload the page and try again."
            )
        case PortalError.wrongKind(let kind):
            return pages.problem(
                .notFound, session: session, title: "Page not found",
                message: "This page is for \(kind == .coach ? "coach" : "lifter") accounts.")
        case PortalError.badRequest(let message):
            return pages.problem(.badRequest, session: session, title: "That did not work", message: message)
        case SpotterError.notFound:
            return pages.notFound(session: session)
        case SpotterError.permissionDenied(let message):
            return pages.problem(
                .forbidden, session: session, title: "Not allowed", message: Self.sentence(message),
                links: Self.clientLinks(request, session))
        case SpotterError.tierRequired(let message, _):
            return pages.problem(
                .forbidden, session: session, title: "Not in your plan", message: Self.sentence(message),
                links: Self.clientLinks(request, session))
        case SpotterError.scopeNotGranted(let message, _):
            return pages.problem(
                .forbidden, session: session, title: "Not shared", message: Self.sentence(message),
                links: Self.clientLinks(request, session))
        case SpotterError.invalidArgument(let violations):
            return pages.problem(
                .badRequest, session: session, title: "That did not work",
                message: violations.map { SessionRoutes.sentence($0, besideField: false) }.joined(separator: " "))
        case SpotterError.failedPrecondition(let message), SpotterError.alreadyExists(_, let message):
            return pages.problem(
                .conflict, session: session, title: "That did not work", message: Self.sentence(message))
        case SpotterError.tooManyRequests(let message, let seconds):
            var response = pages.problem(
                .tooManyRequests, session: session, title: "Too many attempts", message: Self.sentence(message))
            response.headers[.retryAfter] = String(seconds)
            return response
        case let error as HTTPError where error.status == .notFound:
            return pages.notFound(session: session)
        case let error as HTTPError where error.status.code < 500:
            return pages.problem(
                error.status, session: session, title: "That did not work",
                message: error.body ?? "The request could not be read.")
        default:
            logger.error("portal request failed", metadata: ["path": "\(request.uri.path)", "error": "\(error)"])
            return pages.problem(
                .serviceUnavailable, session: session, title: "Spotter is having trouble",
                message: "Nothing was changed. Please try again in a minute.")
        }
    }

    /// A service's message as a sentence: capitalised, with a full stop.
    static func sentence(_ message: String) -> String {
        guard let first = message.first else { return message }
        return first.uppercased() + message.dropFirst() + (message.hasSuffix(".") ? "" : ".")
    }
}
