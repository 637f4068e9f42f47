import Foundation
import SpotterCore
import SpotterTestSupport
import Testing

@Suite("Portal Discover: publishing plans and the coach directory")
struct PortalDiscoverTests {
    private static let squat = "c0000000-0000-4000-8000-000000000001"

    @Test("a coach publishes a program, sees it public in the list, publishes changes and unpublishes it")
    func publishProgram() async throws {
        try await PortalHarness.with { portal in
            let coach = try await portal.account("carla", kind: .coach)
            let template = try await portal.training.templates.create(
                coach, id: "",
                TemplateDraft(
                    name: "Heavy squat", items: [TemplateItemDraft(exerciseID: Self.squat, targetSets: 5, repsMin: 5)]))
            let program = try await portal.coaching.createProgram(
                coach, id: "",
                ProgramDraft(
                    name: "Squat block", notes: "Squat twice a week.", weeks: 1,
                    days: [.init(week: 1, weekday: 1, templateID: template.id.description)]))
            let browser = try await portal.signedIn("carla")
            let list = try await browser.get("/programs")
            #expect(list.html.contains("href=\"/programs/\(program.id)/publish\">Publish in Discover…</a>"))
            let form = try await browser.get("/programs/\(program.id)/publish")
            #expect(form.status == .ok)
            #expect(form.html.contains("Private: only you and the clients you assign it to see it."))

            // Nothing chosen: each choice is named, nothing is published.
            let refused = try await browser.post("/programs/\(program.id)/publish", [("description", "Mine")])
            #expect(refused.status == .badRequest)
            #expect(
                refused.html.contains("Choose a difficulty.")
                    && refused.html.contains("Choose one to three categories."))
            #expect(refused.html.contains(">Mine</textarea>"))
            let discover = portal.database.discoverService(clock: portal.clock)
            #expect(try await discover.ownPublications(coach).isEmpty)

            let published = try await browser.post(
                "/programs/\(program.id)/publish",
                [
                    ("description", ""), ("difficulty", "beginner"), ("categories", "strength"),
                    ("categories", "powerlifting"),
                ])
            #expect(published.status == .seeOther)
            #expect(published.location == "/programs/\(program.id)/publish?done=published-1")
            let shown = try await browser.get(published.location!)
            #expect(shown.html.contains("Published as version 1. Lifters find it in Discover now."))
            #expect(shown.html.contains("Public as version 1 · 0 followers, 0 in the last 30 days"))
            #expect(
                shown.html.contains("value=\"beginner\" checked")
                    && shown.html.contains("value=\"powerlifting\" checked"))
            // The description defaulted to the program's notes.
            #expect(shown.html.contains(">Squat twice a week.</textarea>"))
            #expect(try await browser.get("/programs").html.contains("Public as version 1"))

            _ = try await portal.training.templates.update(
                coach, id: template.id.description,
                TemplateDraft(
                    name: "Heavy squat", items: [TemplateItemDraft(exerciseID: Self.squat, targetSets: 3, repsMin: 3)]),
                expectedVersion: nil)
            let again = try await browser.post(
                "/programs/\(program.id)/publish",
                [("description", "Squat twice a week."), ("difficulty", "beginner"), ("categories", "strength")])
            #expect(again.location == "/programs/\(program.id)/publish?done=published-2")

            let unpublished = try await browser.post("/programs/\(program.id)/unpublish")
            #expect(unpublished.location == "/programs/\(program.id)/publish?done=unpublished")
            let after = try await browser.get(unpublished.location!)
            #expect(after.html.contains("Unpublished. Lifters who follow it keep their copy."))
            #expect(after.html.contains("Unpublished (was version 2"))
            #expect(!after.html.contains("action=\"/programs/\(program.id)/unpublish\""))
            #expect(try await browser.post("/programs/\(program.id)/unpublish").status == .notFound)

            // A template with a custom exercise says why it cannot be published.
            let custom = try await portal.training.exercises.create(
                coach, id: "",
                ExerciseDraft(
                    name: "Sled Drag", category: .carry, muscleGroup: .fullBody, equipment: .other, instructions: ""))
            let sled = try await portal.training.templates.create(
                coach, id: "",
                TemplateDraft(
                    name: "Sled day",
                    items: [TemplateItemDraft(exerciseID: custom.id.description, targetSets: 3, repsMin: 1)]))
            let sledRefused = try await browser.post(
                "/templates/\(sled.id)/publish", [("difficulty", "beginner"), ("categories", "conditioning")])
            #expect(sledRefused.status == .badRequest)
            #expect(sledRefused.html.contains("uses your custom exercise"))
        }
    }

    @Test("a listed coach appears in lifters' Find a coach with highlights, and can be asked from there")
    func directory() async throws {
        try await PortalHarness.with { portal in
            let coach = try await portal.account("carla", kind: .coach)
            _ = try await portal.database.accountService().updateProfile(
                coach, ProfileUpdate(bio: "Meet prep since 2015.", specialities: ["powerlifting"]))
            _ = try await portal.account("lena")
            let carla = try await portal.signedIn("carla")
            let lena = try await portal.signedIn("lena")
            // The section is there before anyone lists themselves, saying so.
            #expect(
                try await lena.get("/coaches").html.contains(
                    "No coach lists themselves in the directory yet. Add one by invite code or username below."))

            try await carla.get("/profile")
            let refused = try await carla.post(
                "/profile/directory", [("listed", "on"), ("highlights", String(repeating: "x", count: 201))])
            #expect(refused.status == .badRequest)
            #expect(refused.html.contains("Line 1 must be at most 200 characters."))
            // Six highlights: refused beside the listing on the profile page, with what was typed.
            let six = (1...6).map { "Highlight \($0)" }.joined(separator: "\n")
            let tooMany = try await carla.post("/profile/directory", [("listed", "on"), ("highlights", six)])
            #expect(tooMany.status == .badRequest)
            #expect(
                tooMany.html.contains(
                    #"<p class="field-error" id="highlights-error">Your listing was not saved: Highlights must be at most 5.</p>"#
                ), "\(tooMany.html.suffix(1_500))")
            #expect(tooMany.html.contains(">\(six)</textarea>") && tooMany.html.contains("Save profile"))
            let saved = try await carla.post(
                "/profile/directory",
                [("listed", "on"), ("highlights", "Coached 40 lifters to their first meet\n\n  IPF referee  ")])
            #expect(saved.location == "/profile?listed=1")
            let profile = try await carla.get("/profile?listed=1")
            #expect(profile.html.contains("name=\"listed\" checked"))
            #expect(profile.html.contains(">Coached 40 lifters to their first meet\nIPF referee</textarea>"))

            let coaches = try await lena.get("/coaches")
            #expect(coaches.html.contains("Find a coach"))
            #expect(coaches.html.contains("<h3>carla <span class=\"muted\">@carla</span></h3>"))
            #expect(coaches.html.contains("<li>IPF referee</li>") && coaches.html.contains("Meet prep since 2015."))
            let asked = try await lena.post("/coaches/request", [("username", "carla"), ("scopes", "history")])
            #expect(asked.location?.hasPrefix("/coaches?done=asked&coach=") == true)
            // Asked: the coach leaves "Find a coach" and shows among the lifter's coaches.
            let after = try await lena.get("/coaches")
            #expect(!after.html.contains("<h3>carla") && after.html.contains("waiting for the coach"))
            #expect(after.html.contains("No other coach lists themselves in the directory yet."))

            // A lifter cannot list themselves.
            #expect(try await lena.post("/profile/directory", [("listed", "on")]).status == .notFound)
            let unlisted = try await carla.post("/profile/directory", [("highlights", "")])
            #expect(unlisted.location == "/profile?listed=1")
            #expect(try await portal.database.discoverService().listing(coach) == (false, []))
        }
    }
}
