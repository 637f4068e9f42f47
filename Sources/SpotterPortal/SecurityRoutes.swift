import Foundation
import Hummingbird
import SpotterCore

/// The signed-in account's security page, `/security`: change the password (the current one
/// checked, wrong guesses throttled as sign-ins are; every other session ends), and the sessions
/// signed in, each with a button to sign it out. The API's `AuthService.ChangePassword`,
/// `ListSessions` and `RevokeSession`, through the same `AuthService`.
struct SecurityRoutes {
    let auth: AuthService
    let pages: Pages

    struct SecurityPage {
        struct Session {
            var id: String
            var device: String
            var signedIn: String
            var lastUsed: String
            var current: Bool
        }

        var values: [String: String] = [:]
        var errors: [String: String] = [:]
        var error: String?
        var notice: String?
        var sessions: [Session] = []
        var others = false
    }

    func add(to router: Router<PortalContext>) {
        router.get("/security") { request, context in
            let session = try context.signedIn()
            var page = SecurityPage()
            let query = request.uri.queryParameters
            if let ended = query.get("changed").flatMap(Int.init) {
                page.notice =
                    "Your password is changed."
                    + (ended == 0 ? "" : " \(Format.count(ended, "other session")) signed out.")
            }
            if query.get("revoked") != nil { page.notice = "That session is signed out." }
            return try await render(session, page)
        }
        router.post("/security/password") { _, context in
            let session = try context.signedIn()
            var page = SecurityPage()
            do {
                let ended = try await auth.changePassword(
                    session.principal, current: context.form["current_password"] ?? "",
                    new: context.form["new_password"] ?? "", address: context.address)
                return Response.redirect(to: "/security?changed=\(ended)", type: .normal)
            } catch SpotterError.invalidArgument(let violations) {
                page.errors = SessionRoutes.fieldErrors(
                    violations, ["current_password": "current_password", "new_password": "new_password"])
            } catch SpotterError.tooManyRequests(_, let seconds) {
                page.error = "Too many wrong passwords. Try again in \(SessionRoutes.wait(seconds))."
            }
            return try await render(session, page, status: .badRequest)
        }
        router.post("/security/sessions/:id/sign-out") { _, context in
            let session = try context.signedIn()
            guard let id = SessionID(try context.parameters.require("id")) else {
                throw SpotterError.notFound("session not found")
            }
            try await auth.revokeSession(session.principal, id)
            guard id != session.principal.sessionID else {
                var response = Response.redirect(to: "/sign-in?signed-out=1", type: .normal)
                response.setCookie(SessionCookie.cleared)
                return response
            }
            return Response.redirect(to: "/security?revoked=1", type: .normal)
        }
    }

    private func render(_ session: PortalSession, _ page: SecurityPage, status: HTTPResponse.Status = .ok)
        async throws -> Response
    {
        var page = page
        let format = Format(session.profile)
        page.sessions = try await auth.sessions(session.principal).map { signedIn in
            SecurityPage.Session(
                id: signedIn.id.description, device: signedIn.deviceLabel.isEmpty ? "A device" : signedIn.deviceLabel,
                signedIn: format.moment(signedIn.createdAt), lastUsed: format.moment(signedIn.lastUsedAt),
                current: signedIn.id == session.principal.sessionID)
        }
        page.others = page.sessions.contains { !$0.current }
        return pages.render(
            "security", title: "Password and sign-ins", session: session, status: status, current: "/profile", page)
    }
}
