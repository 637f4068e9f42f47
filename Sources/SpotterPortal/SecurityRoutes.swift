import Foundation
import Hummingbird
import SpotterCore

/// The signed-in account's security page, `/security`: change the password (the current one
/// checked, wrong guesses throttled as sign-ins are; every other session ends), two-factor sign-in
/// (set up with a QR code or the key, new recovery codes, turned off), and the sessions signed in,
/// each with a button to sign it out; the apps that sync, each with a button to forget it
/// (`SyncService.ListDevices`, `RemoveDevice`); a new username; a new e-mail address (a link to
/// it, the password again); and deleting the account (`/security/delete`, the password again). The
/// API's
/// `AuthService.ChangePassword`, `ChangeUsername`, `ChangeEmail`, `BeginMfaEnrollment`, `ConfirmMfa`,
/// `RegenerateRecoveryCodes`, `DisableMfa`, `ListSessions`, `RevokeSession` and `DeleteAccount`,
/// through the same `AuthService`.
struct SecurityRoutes {
    let auth: AuthService
    let sync: SyncService
    let pages: Pages

    struct SecurityPage {
        struct Session {
            var id: String
            var device: String
            /// Where it signed in from ("" when not known).
            var address: String
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
        /// The apps registered to sync (`SyncService.RegisterDevice`).
        struct SyncDevice {
            var id: String
            var label: String
            var added: String
        }
        var devices: [SyncDevice] = []
        var hasDevices = false
        /// A coach's account, whom lifters find by username (a lifter's, coaches).
        var coach = false
        /// The day two-factor sign-in was turned on ("Tue 3 Mar 2026"); nil while it is off.
        var twoFactorSince: String?
        var twoFactorWaiting = false
        /// The account's address, and whether it is verified.
        var email = ""
        var emailVerified = false
        var username = ""
        /// A change of address waiting for its link, and the day it was sent.
        var pendingEmail: String?
        var pendingSince: String?
    }

    /// Setting up two-factor sign-in: the QR code and key for the app, and the first code.
    struct TwoFactorSetupPage {
        var qr: String
        var key: String
        /// The key without spaces, posted back to tell a key replaced meanwhile.
        var secret: String
        var uri: String
        var errors: [String: String] = [:]
    }

    /// Deleting the account: what goes, and the password (and a code) to do it.
    struct DeleteAccountPage {
        var username = ""
        var coach = false
        var twoFactor = false
        var errors: [String: String] = [:]
        var error: String?
    }

    /// Recovery codes, just made: shown this once.
    struct RecoveryCodesPage {
        var turnedOn: Bool
        var codes: [String]
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
            switch query.get("forgot") {
            case "gone": page.notice = "That device was forgotten already."
            case .some:
                page.notice =
                    "That device is forgotten. If it is still signed in, sign it out above too: "
                    + "a signed-in app registers again the next time it syncs."
            case nil: break
            }
            switch query.get("email-cancelled") {
            case "none": page.notice = "No change of address was waiting: its link was opened or cancelled already."
            case .some: page.notice = "The change of address is cancelled; the link sent no longer works."
            case nil: break
            }
            if query.get("two-factor") == "off" { page.notice = "Two-factor sign-in is off." }
            if query.get("renamed") != nil {
                page.notice = "Your username is now \(session.profile.username). Sign in with it from now on."
            }
            if query.get("email-sent") != nil {
                page.notice =
                    "We sent a link to the new address. Your address changes when you open it; until then, sign in with this one."
            }
            return try await render(session, page)
        }
        router.post("/security/password") { _, context in
            let session = try context.signedIn()
            var page = SecurityPage()
            guard context.form["new_password"] == context.form["new_password_again"] else {
                page.errors = ["new_password_again": SessionRoutes.passwordsDiffer]
                return try await render(session, page, status: .badRequest)
            }
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
        router.post("/security/username") { _, context in
            let session = try context.signedIn()
            var page = SecurityPage()
            do {
                try await auth.changeUsername(session.principal, to: context.form.text("new_username"))
                return Response.redirect(to: "/security?renamed=1", type: .normal)
            } catch SpotterError.invalidArgument(let violations) {
                page.errors = SessionRoutes.fieldErrors(violations, ["new_username": "new_username"])
            } catch SpotterError.alreadyExists(_, let reason), SpotterError.tooManyRequests(let reason, _) {
                page.errors = SessionRoutes.fieldErrors(
                    [FieldViolation(field: "new_username", reason: reason)], ["new_username": "new_username"])
            }
            page.values = ["new_username": context.form.text("new_username")]
            return try await render(session, page, status: .badRequest)
        }
        router.post("/security/email") { _, context in
            let session = try context.signedIn()
            var page = SecurityPage()
            do {
                try await auth.changeEmail(
                    session.principal, password: context.form["email_password"] ?? "",
                    code: context.form.text("email_code"), newEmail: context.form.text("new_email"),
                    address: context.address)
                return Response.redirect(to: "/security?email-sent=1", type: .normal)
            } catch SpotterError.invalidArgument(let violations) {
                page.errors = SessionRoutes.fieldErrors(
                    violations, ["password": "email_password", "new_email": "new_email", "code": "email_code"])
            } catch SpotterError.alreadyExists(_, let reason) {
                page.errors = SessionRoutes.fieldErrors(
                    [FieldViolation(field: "new_email", reason: reason)], ["new_email": "new_email"])
            } catch SpotterError.tooManyRequests(let message, _) {
                page.error = message.sentenceCased + "."
            }
            page.values = ["new_email": context.form.text("new_email")]
            return try await render(session, page, status: .badRequest)
        }
        router.post("/security/two-factor/begin") { _, context in
            let session = try context.signedIn()
            // A set-up already waiting keeps its key: the app may hold it already (a second tab, the
            // back button); a new key would make its codes fail.
            if case .off = try await auth.twoFactorState(session.principal) {
                do {
                    _ = try await auth.beginTwoFactor(session.principal)
                } catch SpotterError.failedPrecondition {
                    return Response.redirect(to: "/security", type: .normal)
                }
            }
            return Response.redirect(to: "/security/two-factor", type: .normal)
        }
        router.get("/security/two-factor") { _, context in
            let session = try context.signedIn()
            guard case .waiting(let enrollment) = try await auth.twoFactorState(session.principal) else {
                return Response.redirect(to: "/security", type: .normal)
            }
            return try renderSetup(session, enrollment)
        }
        router.post("/security/two-factor/confirm") { _, context in
            let session = try context.signedIn()
            let code = context.form.text("code")
            do {
                let codes = try await auth.confirmTwoFactor(session.principal, code: code)
                return pages.render(
                    "recovery_codes", title: "Recovery codes", session: session, current: "/profile",
                    RecoveryCodesPage(turnedOn: true, codes: codes))
            } catch let error as SpotterError {
                guard case .waiting(let enrollment) = try await auth.twoFactorState(session.principal) else {
                    return Response.redirect(to: "/security", type: .normal)
                }
                // The page's key is not the one waiting: the set-up began again elsewhere.
                let shown = context.form.text("key")
                if !shown.isEmpty, shown != enrollment.secret {
                    return try renderSetup(session, enrollment, errors: ["code": Self.keyReplaced])
                }
                guard case .invalidArgument(let violations) = error else { throw error }
                return try renderSetup(
                    session, enrollment, errors: SessionRoutes.fieldErrors(violations, ["code": "code"]))
            }
        }
        router.post("/security/two-factor/recovery-codes") { _, context in
            try await withCode(context, field: "codes_code") { session, code in
                let codes = try await auth.regenerateRecoveryCodes(session.principal, code: code)
                return pages.render(
                    "recovery_codes", title: "Recovery codes", session: session, current: "/profile",
                    RecoveryCodesPage(turnedOn: false, codes: codes))
            }
        }
        router.post("/security/two-factor/off") { _, context in
            try await withCode(context, field: "off_code") { session, code in
                try await auth.disableTwoFactor(session.principal, code: code)
                return Response.redirect(to: "/security?two-factor=off", type: .normal)
            }
        }
        router.get("/security/delete") { _, context in
            let session = try context.signedIn()
            return try await renderDelete(session, DeleteAccountPage())
        }
        router.post("/security/delete") { _, context in
            let session = try context.signedIn()
            var page = DeleteAccountPage()
            do {
                _ = try await auth.deleteAccount(
                    session.principal, password: context.form["password"] ?? "", code: context.form.text("code"),
                    address: context.address)
            } catch SpotterError.invalidArgument(let violations) {
                page.errors = SessionRoutes.fieldErrors(violations, ["password": "password", "code": "code"])
                return try await renderDelete(session, page, status: .badRequest)
            } catch SpotterError.tooManyRequests(let message, _) {
                // Wrong passwords, wrong codes, or a server too busy to check: as the API says it.
                page.error = message.sentenceCased + "."
                return try await renderDelete(session, page, status: .badRequest)
            }
            // Signed out: the session went with the account.
            var response = pages.render("account_deleted", title: "Account deleted", session: nil, ())
            response.setCookie(SessionCookie.cleared)
            return response
        }
        router.post("/security/devices/:id/forget") { _, context in
            let session = try context.signedIn()
            do {
                try await sync.removeDevice(session.principal, deviceID: try context.parameters.require("id"))
            } catch SpotterError.notFound {
                // Forgotten already (a second click, a page left open): nothing more to do.
                return Response.redirect(to: "/security?forgot=gone", type: .normal)
            }
            return Response.redirect(to: "/security?forgot=1", type: .normal)
        }
        router.post("/security/email/cancel") { _, context in
            let session = try context.signedIn()
            do {
                try await auth.cancelEmailChange(session.principal)
            } catch SpotterError.failedPrecondition {
                // Opened already, or cancelled in another window.
                return Response.redirect(to: "/security?email-cancelled=none", type: .normal)
            }
            return Response.redirect(to: "/security?email-cancelled=1", type: .normal)
        }
        // The forms post to these; a reload or a typed address of one goes back to the page.
        for path in [
            "password", "username", "email", "email/cancel", "two-factor/begin", "two-factor/confirm",
            "two-factor/recovery-codes", "two-factor/off",
        ] {
            router.get("/security/\(path)") { _, _ in Response.redirect(to: "/security", type: .normal) }
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
                address: signedIn.address ?? "", signedIn: format.moment(signedIn.createdAt),
                lastUsed: format.moment(signedIn.lastUsedAt),
                current: signedIn.id == session.principal.sessionID)
        }
        page.others = page.sessions.contains { !$0.current }
        page.devices = try await sync.devices(session.principal).map { device in
            SecurityPage.SyncDevice(
                id: device.id.description, label: device.label.isEmpty ? "A device" : device.label,
                added: format.moment(device.createdAt))
        }
        page.hasDevices = !page.devices.isEmpty
        page.email = session.profile.email
        page.username = session.profile.username
        page.coach = session.isCoach
        if let pending = try await auth.pendingEmailChange(session.principal) {
            page.pendingEmail = pending.email
            page.pendingSince = format.moment(pending.sentAt)
        }
        page.emailVerified = session.profile.emailVerifiedAt != nil
        switch try await auth.twoFactorState(session.principal) {
        case .off: break
        case .waiting: page.twoFactorWaiting = true
        case .on(let since): page.twoFactorSince = format.day(since)
        }
        return pages.render(
            "security", title: "Password and sign-ins", session: session, status: status, current: "/profile", page)
    }

    private func renderDelete(_ session: PortalSession, _ page: DeleteAccountPage, status: HTTPResponse.Status = .ok)
        async throws -> Response
    {
        var page = page
        page.username = session.profile.username
        page.coach = session.isCoach
        if case .on = try await auth.twoFactorState(session.principal) { page.twoFactor = true }
        return pages.render(
            "delete_account", title: "Delete your account", session: session, status: status, current: "/profile", page)
    }

    /// A form of the two-factor card that sends a code typed in `field`: a wrong code is said beside
    /// it, too many say how long to wait, and two-factor sign-in turned off meanwhile goes back to
    /// the page.
    private func withCode(
        _ context: PortalContext, field: String, _ action: (PortalSession, String) async throws -> Response
    ) async throws -> Response {
        let session = try context.signedIn()
        var page = SecurityPage()
        do {
            return try await action(session, context.form.text(field))
        } catch SpotterError.invalidArgument(let violations) {
            page.errors = SessionRoutes.fieldErrors(violations, ["code": field])
        } catch SpotterError.tooManyRequests(_, let seconds) {
            page.error = SessionRoutes.tooManyCodes(seconds)
        } catch SpotterError.failedPrecondition {
            return Response.redirect(to: "/security", type: .normal)
        }
        return try await render(session, page, status: .badRequest)
    }

    static let keyReplaced =
        "Two-factor set-up was started again in another window or app, so the key you added no longer works. "
        + "Add this newest key to your app, then enter its code."

    private func renderSetup(
        _ session: PortalSession, _ enrollment: AuthService.TwoFactorEnrollment, errors: [String: String] = [:]
    ) throws -> Response {
        // Four letters at a time, as authenticator apps show keys; spaces are ignored when typed.
        let key = stride(from: 0, to: enrollment.secret.count, by: 4).map { start in
            let from = enrollment.secret.index(enrollment.secret.startIndex, offsetBy: start)
            return String(enrollment.secret[from...].prefix(4))
        }.joined(separator: " ")
        let qr = try QRCode(enrollment.provisioningURI).svg(pixels: 232, title: "QR code for your authenticator app")
        return pages.render(
            "two_factor_setup", title: "Set up two-factor sign-in", session: session,
            status: errors.isEmpty ? .ok : .badRequest, current: "/profile",
            TwoFactorSetupPage(
                qr: qr, key: key, secret: enrollment.secret, uri: enrollment.provisioningURI, errors: errors))
    }
}
