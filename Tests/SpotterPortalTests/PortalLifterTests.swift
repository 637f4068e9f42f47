import Foundation
import SpotterCore
import SpotterTestSupport
import Testing

@Suite("Portal lifter pages")
struct PortalLifterTests {
    @Test("a lifter adds a coach by invite code with the scopes ticked; a wrong code keeps what was typed")
    func redeem() async throws {
        try await PortalHarness.with { portal in
            let coach = try await portal.account("carla", kind: .coach)
            let lena = try await portal.account("lena")
            let invite = try await portal.coaching.createInvite(coach, note: "", validDays: 0)
            let browser = try await portal.signedIn("lena")
            let page = try await browser.get("/coaches")
            #expect(page.html.contains("You have no coach yet."))
            #expect(page.count(#"name="scopes" value="history" checked"#) == 2, "history is ticked in both forms")
            #expect(page.count(#"name="scopes" value="details">"#) == 2, "details is not")

            let wrong = try await browser.post("/coaches/redeem", [("code", "ABCDEFGHJK"), ("scopes", "details")])
            #expect(wrong.status == .notFound)
            #expect(wrong.html.contains("No open invite has this code"))
            #expect(wrong.html.contains(#"value="ABCDEFGHJK""#))
            #expect(wrong.html.contains(#"name="scopes" value="details" checked"#))
            let malformed = try await browser.post("/coaches/redeem", [("code", "12"), ("scopes", "history")])
            #expect(malformed.status == .badRequest)
            #expect(
                malformed.html.contains("The code must be the 10 letters and digits the coach gave you (this has 2).")
            )

            let blank = try await browser.post("/coaches/redeem", [("code", ""), ("scopes", "history")])
            #expect(blank.html.contains("The code is required: the 10 letters and digits the coach gave you."))
            let redeemed = try await browser.post(
                "/coaches/redeem", [("code", invite.code!.lowercased()), ("scopes", "history"), ("scopes", "details")])
            #expect(redeemed.status == .seeOther)
            let links = try await portal.coaching.links(lena, includeClosed: false)
            #expect(links.map(\.status) == [.active])
            #expect(links.first?.scopes == [.history, .details])
            let name = try #require(links.first?.coachName)
            #expect(redeemed.location == "/coaches?done=linked&coach=\(coach.tenantID)")
            let linked = try await browser.get(try #require(redeemed.location))
            #expect(linked.html.contains("Your coach since"))
            #expect(linked.html.contains("\(name) is now your coach and sees history, details."), "\(linked.html)")

            let narrowed = try await browser.post("/coaches/\(coach.tenantID)/scopes", [("scopes", "progress")])
            #expect(narrowed.location == "/coaches?done=saved&coach=\(coach.tenantID)")
            #expect(try await browser.get(narrowed.location ?? "").html.contains("Saved: \(name) now sees progress."))
            let detailsOnly = try await browser.post("/coaches/\(coach.tenantID)/scopes", [("scopes", "details")])
            #expect(
                try await browser.get(detailsOnly.location ?? "").html.contains(
                    "Details are of the workouts History shows: tick History too for \(name) to see them."))
            let nothing = try await browser.post("/coaches/\(coach.tenantID)/scopes", [])
            #expect(
                try await browser.get(nothing.location ?? "").html.contains("Saved: \(name) now sees nothing of yours.")
            )

            // Asked first, saying what ending takes away.
            let ask = try await browser.get("/coaches/\(coach.tenantID)/end")
            #expect(ask.html.contains("assigned you are taken back"), "\(ask.html.suffix(1_500))")
            let ended = try await browser.post("/coaches/\(coach.tenantID)/end")
            #expect(ended.location == "/coaches?done=ended&coach=\(coach.tenantID)")
            #expect(
                try await browser.get(ended.location ?? "").html.contains(
                    "Coaching with \(name) has ended; they see nothing of yours from now on."))
            // A made-up address says nothing rather than something untrue.
            let madeUp = try await browser.get("/coaches?done=saved&coach=\(UUID())")
            #expect(madeUp.status == .ok && !madeUp.html.contains("class=\"notice\""))
            #expect(try await browser.get("/coaches?done=nonsense").status == .ok)
        }
    }

    @Test(
        "a lifter past a lapsed coach's limit is told the coaching is paused, and no more of the coach's plan; the coach's list says so"
    )
    func pausedCoaching() async throws {
        try await PortalHarness.with { portal in
            let coach = try await portal.account("carla", kind: .coach)
            let (ada, bob) = (try await portal.account("ada"), try await portal.account("bob"))
            try await portal.database.asOwner { owner in
                try await owner.query(
                    "UPDATE tenants SET tier = 'coach' WHERE tenant_id = $1", [coach.tenantID.rawValue])
            }
            try await portal.coaching.link(coach, ada, scopes: ["history"])
            portal.clock.advance(by: 60)
            try await portal.coaching.link(coach, bob, scopes: ["history"])
            // The plan ends: free covers one client, the one who joined first.
            try await portal.database.asOwner { owner in
                try await owner.query(
                    "UPDATE tenants SET tier_expires_at = now() - interval '1 day' WHERE tenant_id = $1",
                    [coach.tenantID.rawValue])
            }
            let paused = try await portal.signedIn("bob").get("/coaches")
            #expect(
                paused.html.contains(
                    "Paused: carla cannot see your data for now, until their plan covers you again. Nothing of yours is lost."
                ), "\(paused.html)")
            #expect(!(try await portal.signedIn("ada").get("/coaches").html.contains("Paused")))
            // The coach's client list says why Bob's row is empty.
            let clients = try await portal.signedIn("carla").get("/clients").html
            #expect(clients.contains("paused: beyond the 1 client the free tier covers"), "\(clients)")
            #expect(clients.components(separatedBy: "paused:").count == 2)
            // Bob's row offers to end the coaching, which frees the place; his closed page leads
            // back to the list.
            #expect(clients.contains(#"<a href="/clients/\#(bob.tenantID)/end">End coaching…</a>"#))
            let closed = try await portal.signedIn("carla").get("/clients/\(bob.tenantID)")
            #expect(closed.status == .forbidden && closed.html.contains("Not in your plan"))
            #expect(closed.html.contains(#"<a href="/clients">Back to your clients</a>"#), "\(closed.html)")
            #expect(!closed.html.contains("Back to the start page"))
            // Every tab of his is closed, the Progress tab before an exercise is picked too.
            let progress = try await portal.signedIn("carla").get("/clients/\(bob.tenantID)/progress")
            #expect(progress.status == .forbidden && progress.html.contains("Not in your plan"), "\(progress.status)")
        }
    }

    @Test("a lifter asks a coach by username; an unknown name or a second request is refused by its field")
    func request() async throws {
        try await PortalHarness.with { portal in
            let coach = try await portal.account("carla", kind: .coach)
            _ = try await portal.account("otto")
            let lena = try await portal.account("lena")
            let browser = try await portal.signedIn("lena")
            try await browser.get("/coaches")
            for name in ["nobody", "otto"] {
                let unknown = try await browser.post("/coaches/request", [("username", name), ("scopes", "history")])
                #expect(unknown.status == .notFound, "\(name)")
                #expect(unknown.html.contains("No coach has this username."), "\(name)")
                #expect(unknown.html.contains(#"value="\#(name)""#))
            }
            let asked = try await browser.post("/coaches/request", [("username", "carla"), ("scopes", "progress")])
            #expect(asked.status == .seeOther)
            let link = try #require(try await portal.coaching.links(lena, includeClosed: false).first)
            #expect(link.status == .pending && link.requestedBy == .lifter && link.scopes == [.progress])
            #expect(link.coachID == coach.tenantID)
            #expect(asked.location == "/coaches?done=asked&coach=\(coach.tenantID)")
            let waiting = try await browser.get(asked.location ?? "")
            #expect(waiting.html.contains("waiting for the coach"))
            #expect(waiting.html.contains("\(link.coachName) has been asked. Once they accept, they see progress."))
            let again = try await browser.post("/coaches/request", [("username", "carla"), ("scopes", "progress")])
            #expect(again.status == .conflict)
            #expect(again.html.contains("You already have a pending or active link with this coach."))

            // Not answered yet: withdrawn, not "ended", in words for a request.
            #expect(waiting.html.contains("Withdraw request</a>") && !waiting.html.contains("End coaching</a>"))
            let confirm = try await browser.get("/coaches/\(coach.tenantID)/end")
            #expect(confirm.html.contains("Withdraw your request to \(link.coachName)?"))
            #expect(confirm.html.contains("has not answered yet and has seen nothing of yours. Once you withdraw it"))
            let withdrawn = try await browser.post("/coaches/\(coach.tenantID)/end", [])
            #expect(withdrawn.location == "/coaches?done=withdrawn&coach=\(coach.tenantID)")
            let after = try await browser.get(withdrawn.location ?? "")
            #expect(after.html.contains("Your request to \(link.coachName) is withdrawn."), "\(after.html)")
            #expect(try await portal.coaching.links(lena, includeClosed: false).isEmpty)
            // A coach's invitation is answered on the Coaches page, not "withdrawn".
            _ = try await portal.coaching.inviteClient(coach, username: "lena")
            let invitation = try await browser.get("/coaches/\(coach.tenantID)/end")
            #expect(invitation.status == .seeOther && invitation.location == "/coaches")
            // Its boxes start ticked as a new coach's do (History and Progress), not all empty.
            let invitedPage = try await browser.get("/coaches").html
            let form = try #require(invitedPage.range(of: "action=\"/coaches/\(coach.tenantID)/scopes\"")).upperBound
            let answer = invitedPage[form...].prefix { _ in true }.components(separatedBy: "</form>")[0]
            #expect(
                answer.contains(#"name="scopes" value="history" checked"#)
                    && answer.contains(#"name="scopes" value="progress" checked"#)
                    && !answer.contains(#"value="details" checked"#), "\(answer)")
        }
    }
}
