import Foundation
import SpotterCore
import SpotterPostgres
import SpotterTestSupport
import Testing

@Suite("Portal profile page")
struct PortalProfileTests {
    @Test(
        "feedback from the portal: every page links the form; a refusal names the field; a report is listed with the answer an administrator gives, and only to its sender"
    )
    func feedback() async throws {
        try await PortalHarness.with { portal in
            _ = try await portal.account("lena")
            _ = try await portal.account("otto")
            let browser = try await portal.signedIn("lena")
            #expect(
                try await browser.get("/coaches").html.contains(
                    #"<a href="/feedback">Send feedback or report a bug</a>"#))
            let form = try await browser.get("/feedback")
            #expect(form.status == .ok && form.html.contains(#"value="feedback" checked"#))
            let bad = try await browser.post(
                "/feedback", [("kind", "bug"), ("subject", "  "), ("body", "The chart is empty <b>today</b>.")])
            #expect(bad.status == .badRequest && bad.html.contains(#"id="subject-error""#))
            #expect(bad.html.contains("The chart is empty &lt;b&gt;today&lt;/b&gt;."), "what was typed stays, escaped")
            #expect(bad.html.contains(#"value="bug" checked"#))
            let empty = try await browser.post("/feedback", [("kind", "bug"), ("subject", "Chart"), ("body", "")])
            #expect(empty.html.contains("The description is required.") && !empty.html.contains("The comment"))
            let sent = try await browser.post(
                "/feedback",
                [("kind", "bug"), ("subject", "Empty chart"), ("body", "The chart is empty <b>today</b>.")])
            #expect(sent.location == "/feedback?sent=1")
            let listed = try await browser.get("/feedback?sent=1")
            #expect(listed.html.contains("Thank you: your report is sent."))
            #expect(listed.html.contains("<h3>Empty chart</h3>") && listed.html.contains("Not answered yet."))
            let stored = try await portal.database.asOwner { owner in
                try await owner.query("SELECT feedback_id::text AS id, app_version FROM feedback").single.map {
                    (try $0.decode("id", as: String.self), try $0.decode("app_version", as: String.self))
                }
            }
            let (id, appVersion) = try #require(stored)
            #expect(appVersion == "web portal")
            let admin = AdminService(
                store: PostgresAdminStore(pool: portal.database.adminPool), hasher: PasswordHasher(cost: .testing),
                policy: AuthPolicy())
            try await admin.resolveFeedback(
                id, resolution: "Fixed in the latest release.", actor: AdminActor(operatorName: "ops", osUser: "root"),
                reason: "triage")
            let answered = try await browser.get("/feedback")
            #expect(
                answered.html.contains("Fixed in the latest release.") && !answered.html.contains("Not answered yet."))
            let other = try await portal.signedIn("otto")
            let theirs = try await other.get("/feedback")
            #expect(!theirs.html.contains("Empty chart") && !theirs.html.contains("What you sent"))
        }
    }

    @Test("an address not verified yet is said on the profile, with a new link on request, three an hour")
    func resendVerification() async throws {
        try await PortalHarness.with { portal in
            let lena = try await portal.account("lena")
            let browser = try await portal.signedIn("lena")
            let page = try await browser.get("/profile")
            #expect(page.html.contains("Your address <strong>lena@example.com</strong> is not verified yet."))
            func links() async throws -> Int {
                try await portal.database.count(
                    "SELECT count(*)::int FROM email_outbox WHERE tenant_id = $1 AND kind = 'verify_email'",
                    [lena.tenantID.rawValue])
            }
            #expect(try await links() == 1, "the one sent at registration")
            let sent = try await browser.post("/profile/verify-email")
            #expect(sent.location == "/profile?verification=sent#verify")
            #expect(
                try await browser.get("/profile?verification=sent").html.contains(
                    "A new link is on its way to lena@example.com."))
            _ = try await browser.post("/profile/verify-email")
            #expect(try await links() == 3)
            let refused = try await browser.post("/profile/verify-email")
            #expect(refused.status == .tooManyRequests)
            #expect(
                refused.html.contains(
                    "3 verification e-mails were sent in the last hour; check your inbox and spam folder, or try again later."
                ))
            #expect(try await links() == 3)

            try await portal.database.asOwner { connection in
                try await connection.query(
                    "UPDATE accounts SET email_verified_at = now() WHERE tenant_id = $1", [lena.tenantID.rawValue])
            }
            #expect(!(try await browser.get("/profile").html.contains("is not verified yet")))
            #expect(try await browser.post("/profile/verify-email").location == "/profile")
        }
    }

    @Test("a coach saves name, bio, specialities, time zone and unit; the page shows them escaped")
    func coachSaves() async throws {
        try await PortalHarness.with { portal in
            let coach = try await portal.account("carla", kind: .coach)
            let browser = try await portal.signedIn("carla")
            let page = try await browser.get("/profile")
            #expect(page.status == .ok)
            #expect(page.html.contains("name=\"bio\""))
            #expect(page.html.contains("Your tier: Free"))
            #expect(page.html.contains("0 of 1 clients in use."))
            #expect(page.html.contains("The Coach tier (US$0.99 a month) unlocks up to 20 clients"))

            let script = "<script>alert(1)</script>"
            let saved = try await browser.post(
                "/profile",
                [
                    // A text area's line break comes as CR LF from a browser; it is kept as LF.
                    ("display_name", "Carla \(script)"), ("bio", "Meet prep since 2015.\r\n\(script)"),
                    ("specialities", "powerlifting, , beginners \(script)"), ("time_zone", "Europe/Berlin"),
                    ("unit", "lb"),
                ])
            #expect(saved.status == .seeOther)
            #expect(saved.location == "/profile?saved=1")
            let profile = try await portal.database.accountService().profile(coach)
            #expect(profile.displayName == "Carla \(script)")
            #expect(profile.bio == "Meet prep since 2015.\n\(script)")
            #expect(profile.specialities == ["powerlifting", "beginners \(script)"])
            #expect(profile.timeZone == "Europe/Berlin")
            #expect(profile.unit == .lb)

            let shown = try await browser.get("/profile?saved=1")
            #expect(shown.html.contains("Saved."))
            #expect(!shown.html.contains(script))
            #expect(shown.html.contains("Meet prep since 2015.\n&lt;script&gt;alert(1)&lt;/script&gt;</textarea>"))
            #expect(shown.html.contains("value=\"powerlifting, beginners &lt;script&gt;alert(1)&lt;/script&gt;\""))
            #expect(shown.html.contains("<span class=\"who\">Carla &lt;script&gt;"))
            #expect(shown.html.contains("value=\"lb\" checked"))
        }
    }

    @Test("a refused change names the field, keeps what was typed and changes nothing")
    func refusedChange() async throws {
        try await PortalHarness.with { portal in
            let coach = try await portal.account("carla", kind: .coach)
            let browser = try await portal.signedIn("carla")
            try await browser.get("/profile")
            let before = try await portal.database.accountService().profile(coach)
            let refused = try await browser.post(
                "/profile",
                [
                    ("display_name", "Carla D"), ("bio", String(repeating: "a", count: 1_001)),
                    ("specialities", "squats, Squats"), ("time_zone", "Mars/Olympus"), ("unit", "kg"),
                ])
            #expect(refused.status == .badRequest)
            #expect(refused.html.contains("The bio must be at most 1000 characters."))
            #expect(refused.html.contains("The speciality “Squats” repeats an earlier one."))
            #expect(refused.html.contains("id=\"time_zone-error\""))
            #expect(refused.html.contains("value=\"Mars/Olympus\""))
            #expect(refused.html.contains("value=\"Carla D\""))
            #expect(refused.html.contains("value=\"squats, Squats\""))
            #expect(try await portal.database.accountService().profile(coach) == before)

            let tooMany = try await browser.post(
                "/profile",
                [
                    ("display_name", "Carla"), ("specialities", (1...9).map { "s\($0)" }.joined(separator: ",")),
                    ("time_zone", "UTC"), ("unit", "kg"),
                ])
            #expect(tooMany.html.contains("The specialities must be at most 8, not 9."))
            #expect(try await portal.database.accountService().profile(coach) == before)
        }
    }

    @Test(
        "a lifter saves name, time zone, unit and e-mail notifications; the bio and specialities it has no fields for stay"
    )
    func lifterSaves() async throws {
        try await PortalHarness.with { portal in
            let lena = try await portal.account("lena")
            try await portal.database.asOwner { connection in
                try await connection.query(
                    "UPDATE tenants SET bio = 'kept', specialities = '{kept}' WHERE tenant_id = $1",
                    [lena.tenantID.rawValue])
            }
            let browser = try await portal.signedIn("lena")
            let form = try await browser.get("/profile")
            #expect(
                form.html.contains(
                    #"<input type="checkbox" name="email_notifications" checked> E-mail me coaching news"#))
            // The box left unticked turns the e-mails off; ticked again, on.
            let saved = try await browser.post(
                "/profile", [("display_name", "Lena M"), ("time_zone", "Europe/Oslo"), ("unit", "lb")])
            #expect(saved.status == .seeOther)
            let profile = try await portal.database.accountService().profile(lena)
            #expect(profile.displayName == "Lena M" && profile.timeZone == "Europe/Oslo" && profile.unit == .lb)
            #expect(profile.bio == "kept" && profile.specialities == ["kept"])
            #expect(!profile.emailNotifications)
            #expect(!(try await browser.get("/profile").html.contains(#"name="email_notifications" checked"#)))
            _ = try await browser.post(
                "/profile",
                [
                    ("display_name", "Lena M"), ("time_zone", "Europe/Oslo"), ("unit", "lb"),
                    ("email_notifications", "on"),
                ])
            #expect(try await portal.database.accountService().profile(lena).emailNotifications)
        }
    }

    @Test("a lifter's profile has no bio and shows the lifter tiers; a Coach Pro coach sees the top tier")
    func tiers() async throws {
        try await PortalHarness.with { portal in
            _ = try await portal.account("lena")
            let lifter = try await portal.signedIn("lena")
            let page = try await lifter.get("/profile")
            #expect(!page.html.contains("name=\"bio\""))
            #expect(page.html.contains("Pro (US$1.99 a month) unlocks progress for every exercise"))

            let coach = try await portal.account("carla", kind: .coach)
            try await portal.database.asOwner { connection in
                try await connection.query(
                    "UPDATE tenants SET tier = 'coach_pro', tier_expires_at = '2099-02-01T00:00:00Z' WHERE tenant_id = $1",
                    [coach.tenantID.rawValue])
            }
            try await portal.coaching.link(coach, try await portal.account("otto"), scopes: ["history"])
            let coachPage = try await portal.signedIn("carla").get("/profile")
            // Set "until 2099-01-31": the last day it covers, not the midnight it ends at.
            #expect(
                coachPage.html.contains("Your tier: Coach Pro <span class=\"muted\">through Sat 31 Jan 2099</span>"))
            #expect(coachPage.html.contains("1 of 200 clients in use."))
            #expect(coachPage.html.contains("This is the top tier."))
        }
    }

    @Test(
        "a tier set to end at a moment other than midnight says the time, in the viewer's zone; one that has ended says so beside Free"
    )
    func tierEnds() async throws {
        try await PortalHarness.with { portal in
            let coach = try await portal.account("carla", kind: .coach)
            let end = Date().addingTimeInterval(3 * 3_600)
            try await portal.database.asOwner { connection in
                try await connection.query(
                    "UPDATE tenants SET tier = 'coach', tier_expires_at = $2 WHERE tenant_id = $1",
                    [coach.tenantID.rawValue, end])
            }
            let format = DisplayFormat(timeZone: "UTC", unit: .kg)
            let ending = try await portal.signedIn("carla").get("/profile").html
            #expect(
                ending.contains("Your tier: Coach <span class=\"muted\">until \(format.moment(end))</span>"),
                "\(ending)")
            try await portal.database.asOwner { connection in
                try await connection.query(
                    "UPDATE tenants SET tier_expires_at = $2 WHERE tenant_id = $1",
                    [coach.tenantID.rawValue, end.addingTimeInterval(-86_400)])
            }
            let ended = try await portal.signedIn("carla").get("/profile").html
            #expect(
                ended.contains(
                    "Your tier: Free <span class=\"muted\">(your Coach tier ended \(format.moment(end.addingTimeInterval(-86_400))))</span>"
                ), "\(ended)")
        }
    }
}
