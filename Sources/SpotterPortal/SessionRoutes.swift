import Foundation
import Hummingbird
import SpotterCore

/// Sign-in (with a second factor when the account has one), sign-out and password reset: the
/// API's `AuthService` with its throttling and lockout, behind a cookie.
struct SessionRoutes {
    let auth: AuthService
    let pages: Pages
    let sessionLifetime: TimeInterval
    /// Each password or second-factor attempt's result ("ok", "failed", "throttled"), counted with
    /// the API's (`PortalServices.onSignIn`).
    var onSignIn: @Sendable (String) -> Void = { _ in }

    /// The sign-in and reset forms: what was typed (never a password) and why it was refused.
    struct FormPage {
        var values: [String: String] = [:]
        var errors: [String: String] = [:]
        var error: String?
        var notice: String?
        var next = "/"
        var challenge = ""
        var email = ""
        /// What a form sent after the session ended held, to copy into the form again.
        var typed: [TypedField] = []
        var hasTyped = false
    }

    struct TypedField {
        var label: String
        var value: String
    }

    /// The sign-in page for a form that arrived after its session ended: it says nothing was
    /// changed, leads back to the page the form was on (`Referer`, a path on this site), and shows
    /// the text that was typed. Tokens, codes, passwords, choices and ids are left out.
    static func sessionEnded(_ form: Form, from referer: String?) -> FormPage {
        let back = referer.flatMap(URLComponents.init(string:)).map { page in
            page.percentEncodedPath + (page.percentEncodedQuery.map { "?" + $0 } ?? "")
        }
        var page = FormPage(next: safeNext(back))
        page.error =
            "Your session ended before the form was sent, so nothing was changed. Sign in to go back to the page."
        let left = [
            "_csrf", "next", "action", "token", "challenge", "code", "password", "password_again", "new_password",
            "new_password_again", "current_password", "codes_code", "off_code", "answer",
        ]
        page.typed = form.fields.compactMap { field in
            let value = field.value.trimmingWhitespacesAndNewlines()
            guard !left.contains(field.name), !value.isEmpty, UUID(uuidString: value) == nil,
                value.contains(where: \.isLetter)
            else { return nil }
            let label = typedLabels[field.name] ?? field.name.replacingOccurrences(of: "_", with: " ")
            return TypedField(label: label.sentenceCased, value: value)
        }
        page.hasTyped = !page.typed.isEmpty
        return page
    }

    static let spentVerificationLink =
        "This link is unknown, already used or expired (it works once, for 48 hours). An address it confirmed stays confirmed."
    static let spentResetLink =
        "This reset link is unknown, already used or expired (it works once, for one hour). Ask for a new one here."

    /// Labels for the form fields whose names do not read as words.
    private static let typedLabels = ["body": "comment", "item_notes": "exercise notes", "q": "search"]

    func add(to router: Router<PortalContext>) {
        router.get("/sign-in") { request, context in
            if context.session != nil { return Response.redirect(to: "/", type: .found) }
            var page = FormPage(next: Self.safeNext(request.uri.queryParameters.get("next")))
            if request.uri.queryParameters.get("signed-out") != nil { page.notice = "You are signed out." }
            if request.uri.queryParameters.get("reset") != nil {
                page.notice = "Your password is changed and every device signed out. Sign in with the new password."
            }
            return pages.render("sign_in", title: "Sign in", session: nil, page)
        }
        router.post("/sign-in") { request, context in try await signIn(request, context) }
        router.get("/sign-up") { request, context in
            if context.session != nil { return Response.redirect(to: "/", type: .found) }
            let kind = request.uri.queryParameters.get("as") == "coach" ? "coach" : "lifter"
            return pages.render(
                "sign_up", title: "Create your account", session: nil, SignUpPage(values: ["kind": kind, "unit": "kg"]))
        }
        router.post("/sign-up") { request, context in
            // Signed in already: no second account from this browser's session.
            if context.session != nil { return Response.redirect(to: "/", type: .normal) }
            return try await signUp(request, context)
        }
        router.post("/sign-in/code") { _, context in try await secondFactor(context) }
        router.post("/sign-out") { _, context in
            let session = try context.signedIn()
            try await auth.signOut(session.principal)
            var response = Response.redirect(to: "/sign-in?signed-out=1", type: .normal)
            response.setCookie(SessionCookie.cleared)
            return response
        }
        router.get("/reset-password") { request, context in
            if let token = request.uri.queryParameters.get("token") {
                guard try await auth.accountTokenIsUsable(token, for: .resetPassword) else {
                    var page = FormPage()
                    page.error = Self.spentResetLink
                    return pages.render(
                        "reset_request", title: "Reset your password", session: context.session,
                        status: .badRequest, page)
                }
                return pages.render(
                    "reset_complete", title: "Choose a new password", session: context.session,
                    FormPage(values: ["token": token]))
            }
            return pages.render("reset_request", title: "Reset your password", session: context.session, FormPage())
        }
        router.post("/reset-password") { _, context in
            let email = context.form.text("email")
            do {
                try await auth.requestPasswordReset(email: email, address: context.address)
            } catch SpotterError.invalidArgument(let violations) {
                return pages.render(
                    "reset_request", title: "Reset your password", session: context.session, status: .badRequest,
                    FormPage(values: ["email": email], errors: Self.fieldErrors(violations, ["email": "email"])))
            }
            return pages.render(
                "reset_sent", title: "Check your e-mail", session: context.session, FormPage(email: email))
        }
        router.get("/verify-email") { request, context in
            var page = FormPage(values: ["token": request.uri.queryParameters.get("token") ?? ""])
            let token = page.values["token"] ?? ""
            // The link to a new address (a change of address) opens this page too, naming the address.
            let newAddress = try await auth.emailChangeAddress(token: token)
            if let newAddress { page.values["address"] = newAddress }
            guard try await auth.accountTokenIsUsable(token, for: .verifyEmail) || newAddress != nil else {
                page.error = Self.spentVerificationLink
                return pages.render(
                    "verify_email", title: "Confirm your e-mail address", session: context.session,
                    status: .badRequest, page)
            }
            return pages.render("verify_email", title: "Confirm your e-mail address", session: context.session, page)
        }
        router.post("/verify-email") { _, context in
            let token = context.form.text("token")
            var page = FormPage(values: ["token": token])
            do {
                if let changed = try await auth.verifyEmail(token: token) {
                    page.notice = "Your Spotter address is now \(changed). Thank you."
                } else {
                    page.notice = "Your e-mail address is confirmed. Thank you."
                }
                return pages.render(
                    "verify_email", title: "Confirm your e-mail address", session: context.session, page)
            } catch SpotterError.invalidArgument, SpotterError.notFound {
                page.error = Self.spentVerificationLink
            } catch SpotterError.failedPrecondition(let message) {
                page.error = message.sentenceCased + "."
            }
            return pages.render(
                "verify_email", title: "Confirm your e-mail address", session: context.session,
                status: .badRequest, page)
        }
        router.post("/reset-password/complete") { _, context in
            let token = context.form.text("token")
            // A typo in a password nobody sees would lock the account out until the next reset.
            guard context.form["password"] == context.form["password_again"] else {
                return pages.render(
                    "reset_complete", title: "Choose a new password", session: context.session, status: .badRequest,
                    FormPage(values: ["token": token], errors: ["password_again": Self.passwordsDiffer]))
            }
            do {
                try await auth.completePasswordReset(token: token, newPassword: context.form["password"] ?? "")
            } catch SpotterError.invalidArgument(let violations) {
                return pages.render(
                    "reset_complete", title: "Choose a new password", session: context.session, status: .badRequest,
                    FormPage(
                        values: ["token": token],
                        errors: Self.fieldErrors(violations, ["token": "token", "new_password": "password"])))
            } catch SpotterError.notFound {
                return pages.render(
                    "reset_complete", title: "Choose a new password", session: context.session, status: .badRequest,
                    FormPage(
                        values: ["token": token],
                        errors: ["token": "This code is unknown, already used or expired. Ask for a new e-mail."]))
            }
            var response = Response.redirect(to: "/sign-in?reset=1", type: .normal)
            response.setCookie(SessionCookie.cleared)
            return response
        }
    }

    private func signIn(_ request: Request, _ context: PortalContext) async throws -> Response {
        let login = context.form.text("login")
        var page = FormPage(values: ["login": login], next: Self.safeNext(context.form["next"]))
        var result = "failed"
        defer { onSignIn(result) }
        do {
            switch try await auth.signIn(
                login: login, password: context.form["password"] ?? "",
                deviceLabel: BrowserLabel.label(userAgent: request.headers[.userAgent]),
                deviceToken: DeviceCookie.token(in: request), address: context.address)
            {
            case .signedIn(let tokens):
                result = "ok"
                return signedIn(tokens, next: page.next)
            case .secondFactorRequired(let challenge, _):
                // The password was right, as the API's SignIn answering OK with a challenge.
                result = "ok"
                page.challenge = challenge
                return pages.render("sign_in_code", title: "Two-factor sign-in", session: nil, page)
            }
        } catch SpotterError.invalidArgument(let violations) {
            page.errors = Self.fieldErrors(violations, ["login": "login", "password": "password"])
            return pages.render("sign_in", title: "Sign in", session: nil, status: .badRequest, page)
        } catch SpotterError.unauthenticated(let message, _) {
            page.error =
                message == "this account is disabled" ? "This account is disabled." : "Wrong login or password."
            return pages.render("sign_in", title: "Sign in", session: nil, status: .unauthorized, page)
        } catch SpotterError.tooManyRequests(_, let seconds) {
            result = "throttled"
            page.error = "Too many attempts. Try again in \(Self.wait(seconds))."
            var response = pages.render("sign_in", title: "Sign in", session: nil, status: .tooManyRequests, page)
            response.headers[.retryAfter] = String(seconds)
            return response
        }
    }

    /// The sign-up form: what was typed (never a password), why it was refused, and its choices.
    struct SignUpPage {
        var values: [String: String]
        var errors: [String: String] = [:]
        var error: String?
        var kinds: [ProfileRoutes.Choice] = []
        var units: [ProfileRoutes.Choice] = []
        /// UTC first (the default), then every zone the server knows.
        var timeZones = ["UTC"] + TimeZone.knownTimeZoneIdentifiers.sorted().filter { $0 != "UTC" }

        init(values: [String: String], errors: [String: String] = [:], error: String? = nil) {
            self.values = values
            self.errors = errors
            self.error = error
            kinds = [("lifter", "I train"), ("coach", "I coach")].map {
                ProfileRoutes.Choice(value: $0.0, label: $0.1, checked: values["kind"] == $0.0)
            }
            units = ProfileRoutes.units(checked: values["unit"] ?? "")
        }
    }

    /// Registration as the API's `Register` does it (the same rules, the same throttling by
    /// address), then signed in at once: the address is confirmed by the link e-mailed, as in the apps.
    private func signUp(_ request: Request, _ context: PortalContext) async throws -> Response {
        let form = context.form
        var values = [
            "kind": form.text("kind"), "display_name": form.text("display_name"), "username": form.text("username"),
            "email": form.text("email"), "time_zone": form.text("time_zone"), "unit": form.text("unit"),
        ]
        if values["unit"]?.isEmpty != false { values["unit"] = "kg" }
        func refused(_ errors: [String: String], error: String? = nil, _ status: HTTPResponse.Status) -> Response {
            pages.render(
                "sign_up", title: "Create your account", session: nil, status: status,
                SignUpPage(values: values, errors: errors, error: error))
        }
        let password = form["password"] ?? ""
        let unit = WeightUnit(rawValue: values["unit"] ?? "")
        let zone = values["time_zone"] ?? ""
        let registration = AuthService.Registration(
            email: values["email"] ?? "", username: values["username"] ?? "", password: password,
            kind: TenantKind(rawValue: values["kind"] ?? ""),
            displayName: (values["display_name"] ?? "").isEmpty ? nil : values["display_name"],
            timeZone: zone.isEmpty ? nil : zone, unit: unit, unreadUnit: unit == nil, address: context.address)
        func invalid(_ violations: [FieldViolation]) -> [String: String] {
            var errors = Self.fieldErrors(violations, [:])
            // The API's words for its enums, as the form's choices say them.
            if errors["kind"] != nil { errors["kind"] = "Choose whether you train or coach." }
            if errors["unit"] != nil { errors["unit"] = "Choose kilograms or pounds." }
            return errors
        }
        // A typo in a password nobody sees would lock the account out at once. Said with every
        // other field's problem, so the form is not sent back twice.
        guard password == form["password_again"] else {
            var errors = invalid(registration.violations)
            errors["password_again"] = "The two passwords differ; type the same one twice."
            return refused(errors, .badRequest)
        }
        let tokens: IssuedTokens
        do {
            tokens = try await auth.registerAndSignIn(
                registration, deviceLabel: BrowserLabel.label(userAgent: request.headers[.userAgent]))
        } catch SpotterError.invalidArgument(let violations) {
            return refused(invalid(violations), .badRequest)
        } catch SpotterError.alreadyExists(let field, _) {
            let taken =
                field == "email"
                ? "An account has this address already. Sign in, or reset its password if you forgot it."
                : "This username is taken. Choose another."
            return refused([field: taken], .conflict)
        } catch SpotterError.tooManyRequests(_, let seconds) {
            var response = refused(
                [:], error: "Too many attempts from here. Try again in \(Self.wait(seconds)).", .tooManyRequests)
            response.headers[.retryAfter] = String(seconds)
            return response
        }
        return signedIn(tokens, next: "/profile?welcome=1")
    }

    private func secondFactor(_ context: PortalContext) async throws -> Response {
        var page = FormPage(next: Self.safeNext(context.form["next"]), challenge: context.form.text("challenge"))
        var result = "failed"
        defer { onSignIn(result) }
        do {
            let tokens = try await auth.completeSignIn(challenge: page.challenge, code: context.form.text("code"))
            result = "ok"
            return signedIn(tokens, next: page.next)
        } catch SpotterError.invalidArgument(let violations) {
            page.errors = Self.fieldErrors(violations, ["code": "code", "challenge": "code"])
        } catch SpotterError.unauthenticated(let message, _) {
            if message.contains("challenge") {
                page.values = [:]
                var restart = FormPage(next: page.next)
                restart.error = "The sign-in took too long or the code was wrong too often. Sign in again."
                return pages.render("sign_in", title: "Sign in", session: nil, status: .unauthorized, restart)
            }
            page.errors = [
                "code":
                    "This code is wrong or was already used. The app shows a new one every 30 seconds; "
                    + "a recovery code works once."
            ]
        } catch SpotterError.tooManyRequests(_, let seconds) {
            result = "throttled"
            // The sign-in stays where it is: the same challenge takes a code once the wait is over.
            page.error = Self.tooManyCodes(seconds)
            return pages.render(
                "sign_in_code", title: "Two-factor sign-in", session: nil, status: .tooManyRequests, page)
        }
        return pages.render("sign_in_code", title: "Two-factor sign-in", session: nil, status: .unauthorized, page)
    }

    private func signedIn(_ tokens: IssuedTokens, next: String) -> Response {
        var response = Response.redirect(to: next, type: .normal)
        response.setCookie(SessionCookie(tokens).cookie(maxAge: sessionLifetime))
        if let device = tokens.deviceToken {
            response.setCookie(DeviceCookie.cookie(device, maxAge: auth.knownDeviceLifetime))
        }
        return response
    }

    /// Where to go after signing in: a path on this site, never another site. Browsers drop tabs
    /// and line breaks from a URL (`/\t/evil.example` is `//evil.example`), so a path with any
    /// whitespace or control character, or a backslash, is not taken.
    static func safeNext(_ next: String?) -> String {
        guard let next, next.hasPrefix("/"), !next.hasPrefix("//"), !next.contains("\\"),
            !next.unicodeScalars.contains(where: {
                $0.properties.isWhitespace || $0.properties.generalCategory == .control
                    || $0.properties.generalCategory == .format
            })
        else { return "/" }
        return next
    }

    /// Violations as the form's fields name them, as sentences.
    static func fieldErrors(_ violations: [FieldViolation], _ fields: [String: String]) -> [String: String] {
        var errors: [String: String] = [:]
        for violation in violations {
            let field = fields[violation.field] ?? violation.field
            errors[field, default: ""] += (errors[field] == nil ? "" : " ") + sentence(violation)
        }
        return errors
    }

    /// A violation as a sentence that names its field as the forms label it: "The note must be at
    /// most 200 characters." A field the forms do not label is "This field" beside its input, and
    /// named by its own words ("The page token") on a page of its own (`besideField` false).
    static func sentence(_ violation: FieldViolation, besideField: Bool = true) -> String {
        // A reason that is a sentence of its own ("template 'Day A' uses your custom exercise …")
        // is said as it is, not after "This field".
        let reason = violation.reason
        if !predicates.contains(where: { reason.hasPrefix($0) }), let first = reason.first {
            return first.uppercased() + reason.dropFirst() + (reason.hasSuffix(".") ? "" : ".")
        }
        let last = String(violation.field.split(separator: ".").last.map { $0.prefix { $0 != "[" } } ?? "")
        let subject =
            fieldSubjects[last]
            ?? (besideField || last.isEmpty ? "This field" : "The " + last.replacingOccurrences(of: "_", with: " "))
        return subject + " " + violation.reason + (violation.reason.hasSuffix(".") ? "" : ".")
    }

    /// How the API's reasons that finish a sentence about their field begin.
    private static let predicates = [
        "is ", "must ", "has ", "have ", "was ", "are ", "cannot ", "can ", "does ", "do ", "needs ", "may ",
        "should ", "would ", "contains ", "uses ", "names ", "repeats ", "belongs ",
    ]

    /// The API's field names (the last part of a violation's path) as the portal's forms call them.
    private static let fieldSubjects = [
        "name": "The name", "display_name": "The name", "notes": "The notes", "note": "The note",
        "body": "The comment", "code": "The code", "challenge": "The code", "token": "The code from the e-mail",
        "email": "The address", "login": "The username or e-mail", "password": "The password",
        "new_password": "The password", "current_password": "The current password", "username": "The username",
        "new_username": "The username", "new_email": "The address", "kind": "The account's kind", "unit": "The unit",
        "bio": "The bio",
        "description": "The description", "highlights": "The highlights", "specialities": "The specialities",
        "time_zone": "The time zone", "from": "The first day", "to": "The last day", "weeks": "Weeks",
        "days": "The program", "query": "The search",
    ]

    static let passwordsDiffer = "The two new passwords differ; type the same one twice."

    /// A second-factor code refused for too many wrong ones, at sign-in or on the security page.
    static func tooManyCodes(_ seconds: Int) -> String { "Too many wrong codes. Try again in \(wait(seconds))." }

    static func wait(_ seconds: Int) -> String {
        seconds < 90 ? "\(seconds) seconds" : "\((seconds + 59) / 60) minutes"
    }
}
