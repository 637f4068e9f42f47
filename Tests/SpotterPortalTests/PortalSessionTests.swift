import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import SpotterCore
import SpotterTestSupport
import Testing

@Suite("Portal sign-in and sessions")
struct PortalSessionTests {
    @Test("sign-in sets a Secure, HttpOnly, SameSite=Lax __Host- cookie for a session row the API shares")
    func signIn() async throws {
        try await PortalHarness.with { portal in
            let coach = try await portal.account("carla", kind: .coach)
            let browser = portal.browser()

            let signInPage = try await browser.get("/sign-in")
            #expect(signInPage.status == .ok)
            #expect(signInPage.html.contains(#"<form method="post" action="/sign-in">"#))

            let wrong = try await browser.signIn("carla", password: "not the password")
            #expect(wrong.status == .unauthorized)
            #expect(wrong.html.contains("Wrong login or password."))
            #expect(wrong.html.contains(#"value="carla""#), "the login stays typed")
            #expect(wrong.sessionCookie == nil)

            let missing = try await browser.post("/sign-in", [("login", "carla"), ("password", "")])
            #expect(missing.status == .badRequest)
            #expect(missing.html.contains(#"aria-invalid="true" aria-describedby="password-error""#))
            #expect(missing.html.contains("The password is required."))

            let signedIn = try await browser.signIn("carla@example.com", password: "long enough carla")
            #expect(signedIn.status == .seeOther)
            #expect(signedIn.location == "/")
            let cookie = try #require(signedIn.sessionCookie)
            for attribute in ["Secure", "HttpOnly", "SameSite=Lax", "Path=/"] {
                #expect(cookie.contains(attribute), "\(cookie) has \(attribute)")
            }
            #expect(!cookie.contains("Domain"))
            // The raw tokens are nowhere in the database; the session row is the API's.
            let value = try #require(browser.cookie)
            let parts = value.split(separator: ".")
            #expect(parts.count == 4)
            let sessions = try await portal.database.count(
                "SELECT count(*)::int FROM sessions WHERE tenant_id = $1 AND device_label = 'Web portal' AND revoked_at IS NULL",
                [coach.tenantID.rawValue])
            #expect(sessions == 1)
            let stored = try await portal.database.count(
                "SELECT count(*)::int FROM sessions WHERE access_token_hash = sha256(convert_to($1, 'UTF8'))",
                [String(parts[1])])
            #expect(stored == 1, "only the access token's hash is stored")

            let home = try await browser.get("/")
            #expect(home.location == "/clients")
            let clients = try await browser.get("/clients")
            #expect(clients.status == .ok)
            #expect(clients.html.contains("<h1>Clients</h1>"))
            #expect(clients.headers[.cacheControl] == "no-store")
        }
    }

    @Test("a page without a session sends the browser to sign-in and back to the page afterwards")
    func signInRequired() async throws {
        try await PortalHarness.with { portal in
            _ = try await portal.account("lena")
            let browser = portal.browser()
            let page = try await browser.get("/coaches")
            #expect(page.status == .seeOther)
            #expect(page.location == "/sign-in?next=%2Fcoaches")
            let form = try await browser.get("/sign-in?next=%2Fcoaches")
            #expect(form.html.contains(#"name="next" value="/coaches""#))
            let signedIn = try await browser.post(
                "/sign-in", [("login", "lena"), ("password", "long enough lena"), ("next", "/coaches")])
            #expect(signedIn.location == "/coaches")
            // Never to another site.
            let elsewhere = try await portal.browser().post(
                "/sign-in", [("login", "lena"), ("password", "long enough lena"), ("next", "//evil.example/")])
            #expect(elsewhere.location == "/")
            // Browsers drop a tab from a URL: "/\t/evil.example" would be "//evil.example".
            for next in ["/\t/evil.example", "/\n/evil.example", "/\\evil.example", "https://evil.example/"] {
                let tricked = try await portal.browser().post(
                    "/sign-in", [("login", "lena"), ("password", "long enough lena"), ("next", next)])
                #expect(tricked.location == "/", "next=\(next.debugDescription)")
            }
        }
    }

    @Test("a sign-in form posted from another site is refused and signs no one in")
    func crossSiteSignIn() async throws {
        try await PortalHarness.with { portal in
            _ = try await portal.account("lena")
            let body = ByteBuffer(string: "login=lena&password=long+enough+lena")
            for header in [
                (HTTPField.Name("Origin")!, "https://evil.example"), (HTTPField.Name("Sec-Fetch-Site")!, "cross-site"),
                (HTTPField.Name("Origin")!, "null"),
            ] {
                let response = try await portal.client.execute(
                    uri: "/sign-in", method: .post,
                    headers: [.contentType: "application/x-www-form-urlencoded", header.0: header.1], body: body)
                #expect(response.status == .forbidden, "\(header)")
                #expect(response.headers[.setCookie] == nil, "\(header)")
                // Said as it is: no one was signed in, so no signed-in page has expired.
                let html = String(buffer: response.body)
                #expect(
                    html.contains("This form was sent from another site, so nothing was done.")
                        && !html.contains("signed-in page"), "\(header)")
            }
            let sameSite = try await portal.client.execute(
                uri: "/sign-in", method: .post,
                headers: [
                    .contentType: "application/x-www-form-urlencoded", HTTPField.Name("Sec-Fetch-Site")!: "same-origin",
                ],
                body: body)
            #expect(sameSite.status == .seeOther)
        }
    }

    @Test("a POST without this session's CSRF token is refused with 403 and changes nothing")
    func csrf() async throws {
        try await PortalHarness.with { portal in
            let coach = try await portal.account("carla", kind: .coach)
            let browser = try await portal.signedIn("carla")
            try await browser.get("/clients")
            let invites = "SELECT count(*)::int FROM coach_invites WHERE tenant_id = $1"
            for token in ["", "forged", String(browser.csrf.dropLast()) + "x"] {
                let refused = try await browser.post("/invites", [("note", "from elsewhere")], csrf: token)
                #expect(refused.status == .forbidden, "token '\(token)'")
                #expect(refused.html.contains("nothing was changed"))
            }
            #expect(try await portal.database.count(invites, [coach.tenantID.rawValue]) == 0)
            let made = try await browser.post("/invites", [("note", "for Lena")])
            #expect(made.status == .seeOther)
            #expect(try await browser.get("/clients").html.contains("New invite"))
            #expect(try await portal.database.count(invites, [coach.tenantID.rawValue]) == 1)
            // The token is the session's: another session's does not pass.
            let other = try await portal.signedIn("carla")
            try await other.get("/clients")
            #expect(other.csrf != browser.csrf)
            let crossed = try await browser.post("/sign-out", csrf: other.csrf)
            #expect(crossed.status == .forbidden)
            // Sign-out from an older tab is not silently ignored: it asks again, with this session's token.
            #expect(crossed.html.contains("<h1>Sign out?</h1>") && crossed.html.contains("you are still signed in"))
            #expect(crossed.html.contains(#"<input type="hidden" name="_csrf" value="\#(browser.csrf)">"#))
            let out = try await browser.post("/sign-out")
            #expect(out.location == "/sign-in?signed-out=1")
        }
    }

    @Test("revoking the session or disabling the account ends the portal session at its next request")
    func revocation() async throws {
        try await PortalHarness.with { portal in
            let coach = try await portal.account("carla", kind: .coach)
            let browser = try await portal.signedIn("carla")
            #expect(try await browser.get("/clients").status == .ok)
            // What `spotterctl accounts revoke-sessions` does.
            try await portal.database.asOwner { connection in
                try await connection.query(
                    "UPDATE sessions SET revoked_at = now(), revoked_reason = 'admin' WHERE tenant_id = $1",
                    [coach.tenantID.rawValue])
            }
            let after = try await browser.get("/clients")
            #expect(after.status == .seeOther)
            #expect(after.location?.hasPrefix("/sign-in") == true)
            #expect(after.sessionCookie?.contains("Max-Age=0") == true, "the dead cookie is cleared")

            let again = try await portal.signedIn("carla")
            try await portal.database.asOwner { connection in
                try await connection.query(
                    "UPDATE accounts SET status = 'disabled' WHERE tenant_id = $1", [coach.tenantID.rawValue])
            }
            #expect(try await again.get("/clients").location?.hasPrefix("/sign-in") == true)
            let refused = try await portal.browser().signIn("carla", password: "long enough carla")
            #expect(refused.html.contains("This account is disabled."))
        }
    }

    @Test("an expired access token is refreshed once, even for requests sent together, and the session goes on")
    func refresh() async throws {
        try await PortalHarness.with { portal in
            _ = try await portal.account("carla", kind: .coach)
            let browser = try await portal.signedIn("carla")
            let before = try #require(browser.cookie)
            portal.clock.advance(by: 16 * 60)
            // A page's requests go out together, all with the old cookie.
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        let copy = Browser(client: portal.client)
                        copy.cookie = before
                        return try await copy.get("/clients").status.code
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses == [200, 200, 200, 200])
            let page = try await browser.get("/clients")
            #expect(page.status == .ok)
            let after = try #require(browser.cookie)
            #expect(after != before)
            #expect(before.split(separator: ".").last == after.split(separator: ".").last, "the form key stays")
            #expect(try await browser.get("/clients").status == .ok)
        }
    }

    @Test("sign-out ends the session in the database and clears the cookie")
    func signOut() async throws {
        try await PortalHarness.with { portal in
            let coach = try await portal.account("carla", kind: .coach)
            let browser = try await portal.signedIn("carla")
            let cookie = try #require(browser.cookie)
            try await browser.get("/clients")
            let out = try await browser.post("/sign-out")
            #expect(out.location == "/sign-in?signed-out=1")
            #expect(out.sessionCookie?.contains("Max-Age=0") == true)
            #expect(try await browser.get(out.location!).html.contains("You are signed out."))
            let live = try await portal.database.count(
                "SELECT count(*)::int FROM sessions WHERE tenant_id = $1 AND revoked_at IS NULL",
                [coach.tenantID.rawValue])
            #expect(live == 0)
            let replay = portal.browser()
            replay.cookie = cookie
            #expect(try await replay.get("/clients").location?.hasPrefix("/sign-in") == true)
        }
    }

    @Test("the security page changes the password (checked, throttled) and signs out other sessions, one or all")
    func security() async throws {
        try await PortalHarness.with { portal in
            _ = try await portal.account("carla", kind: .coach)
            let laptop = try await portal.signedIn("carla")
            let phone = try await portal.signedIn("carla")
            let page = try await laptop.get("/security")
            #expect(page.status == .ok)
            #expect(page.count("/sign-out\" class=\"inline-buttons\">") == 2)
            #expect(page.count("(this one)") == 1)
            // A coach is found by lifters; a lifter by coaches.
            #expect(page.html.contains("you sign in with it, and lifters find you by it."))
            _ = try await portal.account("lena")
            #expect(
                try await portal.signedIn("lena").get("/security").html.contains(
                    "you sign in with it, and coaches find you by it."))
            #expect(try await laptop.get("/profile").html.contains(#"<a href="/security">"#))

            let wrong = try await laptop.post(
                "/security/password",
                [
                    ("current_password", "not it at all"), ("new_password", "a fresh long password"),
                    ("new_password_again", "a fresh long password"),
                ])
            #expect(wrong.status == .badRequest)
            #expect(wrong.html.contains("The current password is not your password."))
            #expect(!wrong.html.contains("a fresh long password"), "passwords are never sent back")
            let same = try await laptop.post(
                "/security/password",
                [
                    ("current_password", "long enough carla"), ("new_password", "long enough carla"),
                    ("new_password_again", "long enough carla"),
                ])
            #expect(same.html.contains("The password must differ from the current password."))
            let short = try await laptop.post(
                "/security/password",
                [("current_password", "long enough carla"), ("new_password", "short"), ("new_password_again", "short")])
            #expect(short.html.contains(#"aria-describedby="new_password-error""#))

            // A typo in the repeat changes nothing and says so.
            let typo = try await laptop.post(
                "/security/password",
                [
                    ("current_password", "long enough carla"), ("new_password", "a fresh long password"),
                    ("new_password_again", "a fresh long pasword"),
                ])
            #expect(typo.status == .badRequest)
            #expect(typo.html.contains("The two new passwords differ; type the same one twice."))
            let changed = try await laptop.post(
                "/security/password",
                [
                    ("current_password", "long enough carla"), ("new_password", "a fresh long password"),
                    ("new_password_again", "a fresh long password"),
                ])
            #expect(changed.location == "/security?changed=1")
            #expect(
                try await laptop.get(changed.location!).html.contains(
                    "Your password is changed. 1 other session signed out."))
            #expect(try await phone.get("/clients").location?.hasPrefix("/sign-in") == true, "the phone is signed out")
            #expect(try await portal.browser().signIn("carla", password: "long enough carla").status == .unauthorized)
            let again = try await portal.browser().signIn("carla", password: "a fresh long password")
            #expect(again.status == .seeOther)

            // Another session signed out from the list; then this one, which signs this browser out.
            let list = try await laptop.get("/security")
            #expect(list.count("/sign-out\" class=\"inline-buttons\">") == 2)
            let ids = list.html.matches(of: /\/security\/sessions\/([0-9a-f-]{36})\/sign-out/).map {
                String($0.output.1)
            }
            #expect(ids.count == 2)
            let this = try #require(
                list.html.firstMatch(
                    of:
                        /\(this one\)<\/strong><\/td>(?:<td[^>]*>.*?<\/td>){3}\s*<td><form method="post" action="\/security\/sessions\/([0-9a-f-]{36})/
                )
            ).output.1
            let other = try #require(ids.first { $0 != String(this) })
            #expect(try await laptop.post("/security/sessions/\(other)/sign-out").location == "/security?revoked=1")
            #expect(try await laptop.get("/security").html.contains("You are signed in nowhere else."))
            let out = try await laptop.post("/security/sessions/\(this)/sign-out")
            #expect(out.location == "/sign-in?signed-out=1")
            #expect(try await laptop.get("/clients").location?.hasPrefix("/sign-in") == true)
        }
    }

    @Test("two-factor sign-in is set up with a QR code, asked for at sign-in, given new recovery codes and turned off")
    func twoFactor() async throws {
        try await PortalHarness.with { portal in
            let carla = try await portal.account("carla", kind: .coach)
            let laptop = try await portal.signedIn("carla")
            let off = try await laptop.get("/security")
            #expect(off.html.contains("<strong>Off.</strong>"))
            #expect(off.html.contains("Set up two-factor sign-in"))

            let begun = try await laptop.post("/security/two-factor/begin")
            #expect(begun.location == "/security/two-factor")
            let setup = try await laptop.get("/security/two-factor")
            #expect(setup.status == .ok)
            #expect(setup.html.contains(#"aria-label="QR code for your authenticator app""#))
            let key = try #require(setup.html.firstMatch(of: /<code class="key">([A-Z2-7 ]+)<\/code>/)).output.1
            var secret = try #require(Base32.decode(String(key).replacing(" ", with: "")))
            #expect(setup.html.contains("secret=\(Base32.encode(secret))&amp;issuer=Spotter"))
            // Leaving and coming back shows the same key; nothing is on yet.
            #expect(
                try await laptop.get("/security").html.contains(
                    #"<a class="button" href="/security/two-factor">Finish setting it up</a>"#))
            #expect(try await laptop.get("/security/two-factor").html.contains(String(key)))
            // Set-up begun again (a second tab, the back button) keeps the key the app may hold.
            #expect(try await laptop.post("/security/two-factor/begin").location == "/security/two-factor")
            #expect(try await laptop.get("/security/two-factor").html.contains(String(key)))

            func code(_ offset: Int64 = 0) -> String {
                TOTP.code(secret: secret, step: TOTP.step(at: portal.clock.now) + offset)
            }
            let wrong = try await laptop.post("/security/two-factor/confirm", [("code", code(5))])
            #expect(wrong.status == .badRequest)
            #expect(
                wrong.html.contains(
                    "The code does not match the key being set up; check the app&#39;s clock, and that the app holds the newest key if the set-up was started again."
                ))
            #expect(wrong.html.contains(String(key)), "the same key, to try again")
            // Begun again elsewhere (the API, another device) while this page was open: its code
            // fails, and the page says why and shows the newest key.
            let elsewhere = try await portal.auth.beginTwoFactor(carla)
            let replaced = try await laptop.post(
                "/security/two-factor/confirm", [("code", code()), ("key", String(key).replacing(" ", with: ""))])
            #expect(replaced.html.contains("Two-factor set-up was started again in another window or app"))
            #expect(replaced.html.contains(elsewhere.secret))
            secret = try #require(Base32.decode(elsewhere.secret))
            let on = try await laptop.post("/security/two-factor/confirm", [("code", code())])
            #expect(on.status == .ok)
            #expect(on.html.contains("<h1>Two-factor sign-in is on</h1>"))
            let recovery = on.html.matches(of: /<li><code>([^<]+)<\/code><\/li>/).map { String($0.output.1) }
            #expect(recovery.count == 10)
            #expect(try await laptop.get("/security").html.contains("<strong>On</strong> since"))
            #expect(try await laptop.get("/security/two-factor").location == "/security")
            #expect(
                try await portal.browser().get("/security/two-factor").location
                    == "/sign-in?next=%2Fsecurity%2Ftwo-factor")

            // Signing in now asks for a code; a recovery code does.
            let phone = portal.browser()
            let asked = try await phone.signIn("carla", password: "long enough carla")
            #expect(asked.html.contains("Enter the 6-digit code from your authenticator app"))
            let challenge = try #require(asked.html.firstMatch(of: /name="challenge" value="([^"]+)"/)).output.1
            let signedIn = try await phone.post(
                "/sign-in/code", [("challenge", String(challenge)), ("code", recovery[0]), ("next", "/")])
            #expect(signedIn.status == .seeOther)

            // New recovery codes need a code from the app; the old ones stop working.
            let refused = try await laptop.post("/security/two-factor/recovery-codes", [("codes_code", "000000x")])
            #expect(refused.status == .badRequest)
            #expect(refused.html.contains(#"aria-describedby="codes_code-error""#))
            portal.clock.advance(by: 30)
            let fresh = try await laptop.post("/security/two-factor/recovery-codes", [("codes_code", code())])
            #expect(fresh.html.contains("<h1>New recovery codes</h1>"))
            let newCodes = fresh.html.matches(of: /<li><code>([^<]+)<\/code><\/li>/).map { String($0.output.1) }
            #expect(newCodes.count == 10 && Set(newCodes).isDisjoint(with: recovery))

            let stale = try await laptop.post("/security/two-factor/off", [("off_code", recovery[1])])
            #expect(stale.status == .badRequest)
            #expect(
                stale.html.contains(
                    "The code is wrong or was already used (each code works once; the app shows a new one every 30 seconds)."
                ))
            let turnedOff = try await laptop.post("/security/two-factor/off", [("off_code", newCodes[0])])
            #expect(turnedOff.location == "/security?two-factor=off")
            #expect(try await laptop.get(turnedOff.location!).html.contains("Two-factor sign-in is off."))
            #expect(try await portal.browser().signIn("carla", password: "long enough carla").status == .seeOther)
        }
    }

    @Test("the apps that sync are listed on the security page, and a lost one is forgotten there")
    func syncDevices() async throws {
        try await PortalHarness.with { portal in
            let bea = try await portal.account("bea")
            let laptop = try await portal.signedIn("bea")
            #expect(!(try await laptop.get("/security").html.contains("Apps that sync your data")), "none yet")
            let sync = portal.database.syncService()
            let phone = try await sync.registerDevice(bea, label: "Bea's iPhone")
            _ = try await sync.registerDevice(bea, label: "Watch")
            let page = try await laptop.get("/security")
            #expect(page.html.contains("Apps that sync your data"))
            #expect(page.html.contains("<td>Bea&#39;s iPhone</td>") || page.html.contains("<td>Bea&#x27;s iPhone</td>"))
            let forgot = try await laptop.post("/security/devices/\(phone.id)/forget")
            #expect(forgot.location == "/security?forgot=1")
            let after = try await laptop.get(forgot.location!)
            #expect(after.html.contains("That device is forgotten."))
            #expect(!after.html.contains("iPhone") && after.html.contains("<td>Watch</td>"))
            #expect(try await sync.devices(bea).map(\.label) == ["Watch"])
            // One forgotten already (a second click), or another account's, changes nothing and says so.
            let again = try await laptop.post("/security/devices/\(phone.id)/forget")
            #expect(again.location == "/security?forgot=gone")
            #expect(try await laptop.get(again.location!).html.contains("That device was forgotten already."))
            // Another account's device is out of reach the same way, and stays.
            let cora = try await portal.account("cora")
            let coras = try await sync.registerDevice(cora, label: "Cora's phone")
            #expect(try await laptop.post("/security/devices/\(coras.id)/forget").location == "/security?forgot=gone")
            #expect(try await sync.devices(cora).map(\.label) == ["Cora's phone"])
        }
    }

    @Test("a new username from the security page, signed in with at once; a taken one is said beside the field")
    func changeUsername() async throws {
        try await PortalHarness.with { portal in
            _ = try await portal.account("carla", kind: .coach)
            _ = try await portal.account("bea")
            let laptop = try await portal.signedIn("carla")
            #expect(try await laptop.get("/security").html.contains("You are <strong>carla</strong>"))
            let taken = try await laptop.post("/security/username", [("new_username", "Bea")])
            #expect(taken.status == .badRequest)
            #expect(taken.html.contains("The username is already taken."), "\(taken.html)")
            #expect(taken.html.contains(#"value="Bea""#))
            let renamed = try await laptop.post("/security/username", [("new_username", "coach.carla")])
            #expect(renamed.location == "/security?renamed=1")
            #expect(
                try await laptop.get(renamed.location!).html.contains(
                    "Your username is now coach.carla. Sign in with it from now on."))
            #expect(try await portal.browser().signIn("coach.carla", password: "long enough carla").status == .seeOther)
        }
    }

    @Test("a new e-mail address: the password again, then the link sent there opens the confirm page and changes it")
    func changeEmail() async throws {
        try await PortalHarness.with { portal in
            _ = try await portal.account("carla", kind: .coach)
            let laptop = try await portal.signedIn("carla")
            let page = try await laptop.get("/security")
            #expect(page.html.contains("Your address is <strong>carla@example.com</strong>"))
            let wrong = try await laptop.post(
                "/security/email", [("new_email", "carla@new.example"), ("email_password", "not it")])
            #expect(wrong.status == .badRequest)
            #expect(wrong.html.contains("The password is wrong."))
            #expect(wrong.html.contains(#"value="carla@new.example""#), "the address typed stays")
            let sent = try await laptop.post(
                "/security/email", [("new_email", "carla@new.example"), ("email_password", "long enough carla")])
            #expect(sent.location == "/security?email-sent=1")
            #expect(try await laptop.get(sent.location!).html.contains("We sent a link to the new address."))
            // The change waits, said on the page, and can be cancelled there.
            let waiting = try await laptop.get("/security")
            #expect(waiting.html.contains("A link went to <strong>carla@new.example</strong> on"))
            let cancelled = try await laptop.post("/security/email/cancel")
            #expect(cancelled.location == "/security?email-cancelled=1")
            let after = try await laptop.get(cancelled.location!)
            #expect(after.html.contains("The change of address is cancelled; the link sent no longer works."))
            #expect(!after.html.contains("A link went to"))
            // A reload of a form's address goes back to the page.
            #expect(try await laptop.get("/security/email").location == "/security")
            _ = try await laptop.post(
                "/security/email", [("new_email", "carla@new.example"), ("email_password", "long enough carla")])
            let token = try #require(
                try await portal.database.emailedCode(to: "carla@new.example", kind: "change_email"))
            let confirm = try await laptop.get("/verify-email?token=\(token)")
            #expect(confirm.status == .ok)
            #expect(confirm.html.contains("This makes <strong>carla@new.example</strong> your Spotter account"))
            #expect(confirm.html.contains("Confirm my e-mail address"))
            let done = try await laptop.post("/verify-email", [("token", token)])
            #expect(done.html.contains("Your Spotter address is now carla@new.example. Thank you."), "\(done.html)")
            #expect(
                try await laptop.get("/security").html.contains(
                    "Your address is <strong>carla@new.example</strong> (confirmed)"))
        }
    }

    @Test("deleting the account: the page says what goes, a wrong password keeps everything, the right one erases it")
    func deleteAccount() async throws {
        try await PortalHarness.with { portal in
            let carla = try await portal.account("carla", kind: .coach)
            _ = try await portal.account("bea")
            let laptop = try await portal.signedIn("carla")
            #expect(
                try await laptop.get("/security").html.contains(
                    #"<a class="button danger" href="/security/delete">Delete your account…</a>"#))
            let page = try await laptop.get("/security/delete")
            #expect(page.status == .ok)
            #expect(page.html.contains("<h1>Delete your account?</h1>"))
            #expect(page.html.contains("your links to your clients"))
            #expect(page.html.contains(#"<a href="/export.json" download>download everything (JSON)</a>"#))
            #expect(!page.html.contains(#"name="code""#), "no code asked while two-factor sign-in is off")

            let wrong = try await laptop.post("/security/delete", [("password", "long enough bea")])
            #expect(wrong.status == .badRequest)
            #expect(wrong.html.contains("The password is wrong."))
            #expect(try await portal.database.count("SELECT count(*)::int FROM tenants") == 2)

            let gone = try await laptop.post("/security/delete", [("password", "long enough carla")])
            #expect(gone.status == .ok)
            #expect(gone.html.contains("<h1>Your account is deleted</h1>"))
            #expect(gone.sessionCookie?.contains("Max-Age=0") == true)
            #expect(try await portal.database.tablesHoldingRows(of: carla.tenantID) == [])
            #expect(try await portal.database.count("SELECT count(*)::int FROM tenants") == 1)
            #expect(try await laptop.get("/clients").location?.hasPrefix("/sign-in") == true)
            #expect(
                try await portal.browser().signIn("carla", password: "long enough carla").status == .unauthorized)
        }
    }

    @Test("a form sent after the session ended changes nothing, shows what was typed and signs in back to its page")
    func formAfterSessionEnded() async throws {
        try await PortalHarness.with { portal in
            let coach = try await portal.account("carla", kind: .coach)
            let tab = try await portal.signedIn("carla")
            try await tab.get("/profile")
            // Another tab signs out; this tab still shows the profile form with its token.
            let other = portal.browser()
            other.cookie = tab.cookie
            try await other.get("/clients")
            try await other.post("/sign-out")

            tab.referer = "https://127.0.0.1/profile?tab=public"
            let script = "<script>alert(1)</script>"
            let csrf = tab.csrf
            let sent = try await tab.post(
                "/profile",
                [
                    ("display_name", "Carla D"), ("bio", "Meet prep since 2015.\nTwelve \(script) nationals."),
                    ("specialities", ""), ("time_zone", "Europe/Berlin"), ("unit", "kg"),
                ])
            #expect(sent.status == .unauthorized)
            #expect(sent.html.contains("Your session ended before the form was sent, so nothing was changed."))
            #expect(sent.html.contains(#"<input type="hidden" name="next" value="/profile?tab=public">"#))
            #expect(sent.html.contains("<h2>What you typed</h2>"))
            #expect(sent.html.contains("<dt>Bio</dt><dd>Meet prep since 2015.\nTwelve &lt;script&gt;"))
            #expect(sent.html.contains("<dt>Display name</dt><dd>Carla D</dd>"))
            #expect(sent.html.contains("<dt>Time zone</dt><dd>Europe/Berlin</dd>"))
            #expect(!sent.html.contains("<dt>Specialities</dt>"), "an empty field is left out")
            #expect(!sent.html.contains(csrf), "the form's token is not shown")
            #expect(!sent.html.contains(script))
            #expect(try await portal.database.accountService().profile(coach).bio == "", "nothing was saved")

            // A password form sent after the session ended never shows a password back.
            let security = try await tab.post(
                "/security/password",
                [
                    ("current_password", "long enough carla"), ("new_password", "Typed New Secret"),
                    ("new_password_again", "Typed New Secret"),
                ], csrf: csrf)
            #expect(security.status == .unauthorized)
            #expect(!security.html.contains("long enough carla") && !security.html.contains("Typed New Secret"))

            // Signing in from that page goes back to the form's page.
            let again = try await tab.post(
                "/sign-in", [("login", "carla"), ("password", "long enough carla"), ("next", "/profile?tab=public")])
            #expect(again.location == "/profile?tab=public")

            // With no Referer (or one that is not a path on this site) sign-in leads home.
            tab.referer = nil
            try await tab.get("/clients")
            try await tab.post("/sign-out")
            let bare = try await tab.post("/profile", [("bio", "x")])
            #expect(bare.status == .unauthorized)
            #expect(bare.html.contains(#"name="next" value="/""#))
            #expect(bare.html.contains("<dt>Bio</dt><dd>x</dd>"))
            // Signing out of a session that has already ended is simply done.
            #expect(try await tab.post("/sign-out").location == "/sign-in?signed-out=1")
        }
    }

    @Test(
        "a browser that signed in is a known device: it stays one device, and others' wrong passwords do not lock it out"
    )
    func knownDevice() async throws {
        try await PortalHarness.with { portal in
            let coach = try await portal.account("carla", kind: .coach)
            func devices() async throws -> Int {
                try await portal.database.count(
                    "SELECT count(*)::int FROM known_devices WHERE tenant_id = $1", [coach.tenantID.rawValue])
            }
            let laptop = portal.browser()
            let first = try await laptop.signIn("carla", password: "long enough carla")
            #expect(first.status == .seeOther)
            let cookie = try #require(
                first.headers[values: .setCookie].first { $0.hasPrefix("__Secure-spotter_device=spd_") })
            for attribute in ["Secure", "HttpOnly", "SameSite=Strict", "Path=/sign-in", "Max-Age=31536000"] {
                #expect(cookie.contains(attribute), "\(cookie) has \(attribute)")
            }
            #expect(!cookie.contains("Domain"))
            #expect(try await devices() == 1)

            // Signed out and in again, the laptop is the same known device, not a new one each time.
            try await laptop.get("/clients")
            #expect(try await laptop.post("/sign-out").location == "/sign-in?signed-out=1")
            #expect(try await laptop.signIn("carla", password: "long enough carla").status == .seeOther)
            #expect(try await devices() == 1)

            // A cookie that is not a device token is ignored, not an error on the form.
            let odd = portal.browser()
            odd.setCookie("__Secure-spotter_device", "not-a-token")
            #expect(try await odd.signIn("carla", password: "long enough carla").status == .seeOther)
            #expect(try await devices() == 2)

            // Someone at the same address (tests have one) guesses until the address waits ...
            let stranger = portal.browser()
            for _ in 0..<5 {
                #expect(try await stranger.signIn("carla", password: "a wrong guess").status == .unauthorized)
            }
            let refused = try await stranger.signIn("carla", password: "long enough carla")
            #expect(refused.status == .tooManyRequests)
            #expect(refused.html.contains("Too many attempts."))
            // ... and the laptop signs in all the same.
            try await laptop.get("/clients")
            try await laptop.post("/sign-out")
            #expect(try await laptop.signIn("carla", password: "long enough carla").status == .seeOther)
            #expect(try await devices() == 2)
        }
    }

    @Test("password reset: the e-mailed link opens the form, a bad code keeps the page, a good one signs everyone out")
    func passwordReset() async throws {
        try await PortalHarness.with { portal in
            _ = try await portal.account("lena")
            let browser = try await portal.signedIn("lena")
            let anonymous = portal.browser()
            #expect(try await anonymous.get("/reset-password").html.contains("Reset your password"))
            let bad = try await anonymous.post("/reset-password", [("email", "not an address")])
            #expect(bad.status == .badRequest)
            #expect(bad.html.contains(#"value="not an address""#))
            let sent = try await anonymous.post("/reset-password", [("email", "lena@example.com")])
            #expect(sent.html.contains("Check your e-mail"))
            let code = try #require(
                try await portal.database.emailedCode(to: "lena@example.com", kind: "reset_password"))
            let form = try await anonymous.get("/reset-password?token=\(code)")
            #expect(form.html.contains(#"value="\#(code)""#))
            #expect(form.html.contains("At least \(CredentialRules.passwordMinLength) characters."))
            let wrong = try await anonymous.post(
                "/reset-password/complete",
                [
                    ("token", "spp_wrong"), ("password", "a brand new password"),
                    ("password_again", "a brand new password"),
                ])
            #expect(wrong.status == .badRequest)
            #expect(wrong.html.contains("unknown, already used or expired"))
            let short = try await anonymous.post(
                "/reset-password/complete", [("token", code), ("password", "short"), ("password_again", "short")])
            #expect(short.status == .badRequest)
            #expect(short.html.contains(#"aria-describedby="password-error""#))
            let done = try await anonymous.post(
                "/reset-password/complete",
                [("token", code), ("password", "a brand new password"), ("password_again", "a brand new password")])
            #expect(done.location == "/sign-in?reset=1")
            // The used link, opened again, says so before a new password is typed, and asks for a new link.
            for token in [code, "spp_wrong"] {
                let used = try await anonymous.get("/reset-password?token=\(token)")
                #expect(used.status == .badRequest)
                #expect(used.html.contains("This reset link is unknown, already used or expired"))
                #expect(used.html.contains(#"<form method="post" action="/reset-password">"#))
                #expect(!used.html.contains("New password"))
            }
            #expect(try await browser.get("/coaches").location?.hasPrefix("/sign-in") == true)
            #expect(try await portal.browser().signIn("lena", password: "a brand new password").status == .seeOther)
        }
    }

    @Test(
        "sign-up: a coach or a lifter registers in the portal with the API's rules, is signed in at once and told where the link went; refusals name the field and keep what was typed"
    )
    func signUp() async throws {
        try await PortalHarness.with { portal in
            _ = try await portal.account("lena")
            let browser = portal.browser()
            #expect(try await browser.get("/sign-in").html.contains(#"<a href="/sign-up">Create an account</a>"#))
            let form = try await browser.get("/sign-up?as=coach")
            #expect(form.status == .ok && form.html.contains(#"value="coach" checked"#))
            #expect(
                form.html.contains(#"src="/assets/time-zone.js?v="#) && form.html.contains("data-browser-time-zone"))
            func fields(_ changes: [String: String] = [:]) -> [(String, String)] {
                var values = [
                    "kind": "coach", "display_name": "Carla Coach", "username": "carla", "email": "carla@example.com",
                    "password": "long enough carla", "password_again": "long enough carla",
                    "time_zone": "Europe/Berlin", "unit": "lb",
                ]
                values.merge(changes) { $1 }
                return values.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
            }
            // Every problem at once, each beside its field; what was typed stays, the password does not.
            let bad = try await browser.post(
                "/sign-up",
                fields([
                    "username": "1carla", "email": "not an address", "password": "short", "password_again": "short",
                    "time_zone": "Mars/Olympus",
                ]))
            #expect(bad.status == .badRequest)
            #expect(bad.html.contains(#"id="username-error""#) && bad.html.contains(#"id="email-error""#))
            #expect(bad.html.contains(#"id="password-error""#) && bad.html.contains(#"id="time_zone-error""#))
            #expect(bad.html.contains(#"value="1carla""#) && !bad.html.contains("short\""))
            let noKind = try await browser.post("/sign-up", fields(["kind": "", "unit": "stone"]))
            #expect(noKind.status == .badRequest && noKind.html.contains("Choose whether you train or coach."))
            #expect(noKind.html.contains("Choose kilograms or pounds."))
            #expect(form.html.contains(#"<datalist id="time-zones"><option value="UTC">"#))
            let differ = try await browser.post("/sign-up", fields(["password_again": "long enough carl"]))
            #expect(differ.status == .badRequest && differ.html.contains("The two passwords differ"))
            // With the other fields' problems, not one kind at a time.
            let differAndBad = try await browser.post(
                "/sign-up",
                fields(["username": "1d", "email": "nope", "password": "short", "password_again": "other"]))
            #expect(differAndBad.html.contains("The two passwords differ"))
            #expect(
                differAndBad.html.contains(#"id="username-error""#) && differAndBad.html.contains(#"id="email-error""#)
                    && differAndBad.html.contains(#"id="password-error""#))
            let taken = try await browser.post("/sign-up", fields(["username": "LENA", "email": "other@example.com"]))
            #expect(taken.status == .conflict && taken.html.contains("This username is taken. Choose another."))
            let takenAddress = try await browser.post("/sign-up", fields(["email": "lena@example.com"]))
            #expect(
                takenAddress.status == .conflict && takenAddress.html.contains("An account has this address already"))
            #expect(try await portal.database.count("SELECT count(*)::int FROM tenants") == 1, "nothing stored")

            let done = try await browser.post("/sign-up", fields())
            #expect(done.status == .seeOther && done.location == "/profile?welcome=1")
            let welcome = try await browser.get("/profile?welcome=1")
            #expect(welcome.html.contains("A link to confirm your address is on its way to carla@example.com."))
            #expect(welcome.html.contains("Next, invite your first client under Clients."))
            let clients = try await browser.get("/clients")
            #expect(clients.status == .ok, "signed in as the coach")
            let stored = try await portal.database.asOwner { owner in
                try await owner.query(
                    "SELECT t.kind, t.display_name, t.time_zone, t.unit FROM accounts a JOIN tenants t USING (tenant_id) WHERE a.username = 'carla'"
                ).single.map {
                    [
                        try $0.decode("kind", as: String.self), try $0.decode("display_name", as: String.self),
                        try $0.decode("time_zone", as: String.self), try $0.decode("unit", as: String.self),
                    ]
                }
            }
            #expect(stored == ["coach", "Carla Coach", "Europe/Berlin", "lb"])
            #expect(try await portal.database.emailedCode(to: "carla@example.com", kind: "verify_email") != nil)
            #expect(try await browser.get("/sign-up").location == "/", "signed in: no second account from here")
            let again = try await browser.post(
                "/sign-up", fields(["username": "carla2", "email": "carla2@example.com"]))
            #expect(again.location == "/")
            // A sign-up form posted from another site creates nothing.
            let crossSite = try await portal.client.execute(
                uri: "/sign-up", method: .post,
                headers: [
                    .contentType: "application/x-www-form-urlencoded",
                    HTTPField.Name("Origin")!: "https://evil.example",
                ],
                body: ByteBuffer(
                    string:
                        "kind=lifter&username=mallory&email=mallory%40example.com&password=long+enough+m&password_again=long+enough+m"
                ))
            #expect(crossSite.status == .forbidden && crossSite.headers[.setCookie] == nil)
            #expect(
                try await portal.database.count(
                    "SELECT count(*)::int FROM accounts WHERE username IN ('carla2', 'mallory')") == 0)
            // The one password hash of a sign-up: its session is open, no second check counted anything.
            #expect(
                try await portal.database.count(
                    "SELECT count(*)::int FROM sessions s JOIN accounts a USING (tenant_id) WHERE a.username = 'carla'")
                    == 1)

            // A lifter with no time zone and no name: UTC and the username.
            let lifter = portal.browser()
            _ = try await lifter.get("/sign-up")
            let joined = try await lifter.post(
                "/sign-up",
                fields([
                    "kind": "lifter", "display_name": "", "username": "otto", "email": "otto@example.com",
                    "time_zone": "",
                ]))
            #expect(joined.location == "/profile?welcome=1")
            #expect(
                try await lifter.get("/profile?welcome=1").html.contains(
                    "Next, add your coach under Coaches with the code they gave you"))
            #expect(
                try await portal.database.count(
                    "SELECT count(*)::int FROM accounts a JOIN tenants t USING (tenant_id) WHERE a.username = 'otto' AND t.display_name = 'otto' AND t.time_zone = 'UTC' AND t.kind = 'lifter'"
                ) == 1)
            #expect(try await portal.browser().get("/assets/time-zone.js").html.contains("resolvedOptions().timeZone"))
        }
    }

    @Test(
        "the verification e-mail's link opens a page whose button confirms the address; opening it alone changes nothing"
    )
    func verifyEmail() async throws {
        try await PortalHarness.with { portal in
            let lena = try await portal.account("lena")
            let code = try #require(try await portal.database.emailedCode(to: "lena@example.com", kind: "verify_email"))
            func verified() async throws -> Int {
                try await portal.database.count(
                    "SELECT count(*)::int FROM accounts WHERE tenant_id = $1 AND email_verified_at IS NOT NULL",
                    [lena.tenantID.rawValue])
            }
            let anonymous = portal.browser()
            // The e-mail's link, as Mail.verification writes it.
            let page = try await anonymous.get("/verify-email?token=\(code)")
            #expect(page.status == .ok)
            #expect(page.html.contains("Confirm my e-mail address") && page.html.contains(#"value="\#(code)""#))
            #expect(try await verified() == 0, "opening the link changes nothing")
            let done = try await anonymous.post("/verify-email", [("token", code)])
            #expect(done.status == .ok)
            #expect(done.html.contains("Your e-mail address is confirmed."))
            #expect(try await verified() == 1)
            for token in [code, "spv_wrong", ""] {
                let again = try await anonymous.post("/verify-email", [("token", token)])
                #expect(again.status == .badRequest, "\(token)")
                #expect(again.html.contains("This link is unknown, already used or expired"), "\(token)")
            }
            // Opened again, a used (or unknown) link says so at once, with no button to press.
            for token in [code, "spv_wrong"] {
                let opened = try await anonymous.get("/verify-email?token=\(token)")
                #expect(opened.status == .badRequest, "\(token)")
                #expect(opened.html.contains("This link is unknown, already used or expired"), "\(token)")
                #expect(!opened.html.contains("Confirm my e-mail address</button>"), "\(token)")
            }
        }
    }

    @Test("assets are served with long cache lifetimes; unknown paths get the not-found page")
    func assets() async throws {
        try await PortalHarness.with { portal in
            let browser = portal.browser()
            let css = try await browser.get("/assets/portal.css")
            #expect(css.status == .ok)
            #expect(css.headers[.contentType] == "text/css; charset=utf-8")
            #expect(css.headers[.cacheControl] == "public, max-age=31536000, immutable")
            #expect(try await browser.get("/assets/icon.svg").headers[.contentType] == "image/svg+xml")
            let missing = try await browser.get("/assets/nothing.js")
            #expect(missing.status == .notFound)
            #expect(missing.html.contains("Page not found"))
            #expect(try await browser.get("/no/such/page").status == .notFound)
        }
    }
}

@Suite("Portal behind a proxy")
struct PortalProxyTests {
    @Test("sign-in throttling counts a trusted proxy's X-Forwarded-For address, and an untrusted peer's own")
    func forwardedFor() async throws {
        let loopback = try TrustedProxies(parsing: "127.0.0.1/32")
        for (trusted, expected) in [(loopback, "address:203.0.113.9"), (.none, "address:127.0.0.1")] {
            try await PortalHarness.with(.live, trustedProxies: trusted) { portal in
                let carla = try await portal.account("carla", kind: .coach)
                let response = try await portal.client.execute(
                    uri: "/sign-in", method: .post,
                    headers: [.contentType: "application/x-www-form-urlencoded", .xForwardedFor: "203.0.113.9"],
                    body: ByteBuffer(string: "login=carla&password=wrong+password+here"))
                #expect(response.status == .unauthorized)
                let sources = try await portal.database.asOwner { connection in
                    try await connection.query(
                        "SELECT source FROM sign_in_failures WHERE tenant_id = $1", [carla.tenantID.rawValue]
                    ).map { try $0.decode("source", as: String.self) }
                }
                #expect(sources == [expected])
            }
        }
    }
}

extension PortalProxyTests {
    @Test("a session remembers where it signed in from and which browser, and the security page says so")
    func sessionOrigin() async throws {
        try await PortalHarness.with(.live, trustedProxies: try TrustedProxies(parsing: "127.0.0.1/32")) { portal in
            _ = try await portal.account("carla", kind: .coach)
            let signedIn = try await portal.client.execute(
                uri: "/sign-in", method: .post,
                headers: [
                    .contentType: "application/x-www-form-urlencoded", .xForwardedFor: "203.0.113.9",
                    .userAgent:
                        "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0",
                ],
                body: ByteBuffer(string: "login=carla&password=long+enough+carla"))
            #expect(signedIn.status == .seeOther)
            let cookie = try #require(signedIn.headers[.setCookie]?.split(separator: ";").first.map(String.init))
            let page = try await portal.client.execute(uri: "/security", method: .get, headers: [.cookie: cookie])
            let html = String(buffer: page.body)
            #expect(html.contains(#"<td data-label="From">203.0.113.9</td>"#), "\(html)")
            #expect(html.contains("Web portal · Firefox on Windows <strong>(this one)</strong>"))
        }
    }

    @Test("behind a trusted proxy a sign-in form's Origin is checked against the forwarded host")
    func forwardedHost() async throws {
        let loopback = try TrustedProxies(parsing: "127.0.0.1/32")
        for (trusted, forwardedHost, status) in [
            (loopback, "portal.example", HTTPResponse.Status.seeOther), (loopback, nil, .forbidden),
            (TrustedProxies.none, "portal.example", .forbidden),
        ] {
            try await PortalHarness.with(.live, trustedProxies: trusted) { portal in
                _ = try await portal.account("carla", kind: .coach)
                var headers: HTTPFields = [
                    .contentType: "application/x-www-form-urlencoded", .origin: "https://portal.example",
                ]
                if let forwardedHost { headers[HTTPField.Name("X-Forwarded-Host")!] = forwardedHost }
                let response = try await portal.client.execute(
                    uri: "/sign-in", method: .post, headers: headers,
                    body: ByteBuffer(string: "login=carla&password=long+enough+carla"))
                #expect(
                    response.status == status,
                    "trusted: \(trusted != .none), forwarded: \(String(describing: forwardedHost))")
            }
        }
    }
}

extension HTTPField.Name {
    fileprivate static let xForwardedFor = Self("X-Forwarded-For")!
}
