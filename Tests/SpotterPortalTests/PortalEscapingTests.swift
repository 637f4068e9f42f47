import Foundation
import SpotterCore
import SpotterTestSupport
import Testing

/// Every text a person wrote, shown on every page that shows it, arrives as text: `<script>` in a
/// name, a note, a comment or a bio is escaped, never markup.
@Suite("Portal escaping")
struct PortalEscapingTests {
    static let script = "<script>alert(1)</script>"
    static let escaped = "&lt;script&gt;alert(1)&lt;/script&gt;"

    @Test("names, notes, comments and bios with <script> are escaped on every page that shows them")
    func everyField() async throws {
        try await PortalHarness.with { portal in
            let world = try await CoachWorld.build(portal)
            let script = Self.script
            try await portal.database.asOwner { connection in
                try await connection.query(
                    "UPDATE tenants SET display_name = $2, bio = $3 WHERE tenant_id = $1",
                    [world.coach.tenantID.rawValue, "Carla \(script)", "Bio \(script)"])
            }
            let custom = try await portal.training.exercises.create(
                world.lifter, id: "",
                ExerciseDraft(
                    name: "Zercher \(script)", category: .squat, muscleGroup: .quadriceps, equipment: .barbell,
                    instructions: ""))
            let workout = try await portal.training.workouts.log(
                world.lifter, id: "",
                workoutDraft("Day \(script)", at: portal.clock.now.addingTimeInterval(-3_600), exercises: [custom.id]))
            _ = try await portal.coaching.comment(
                world.lifter, workoutID: workout.id.description, exerciseIndex: 0, setIndex: 0,
                body: "Lifter says \(script)")
            let template = try await portal.training.templates.create(
                world.coach, id: "",
                TemplateDraft(
                    name: "Template \(script)", notes: "Template notes \(script)",
                    items: [
                        TemplateItemDraft(
                            exerciseID: Catalog.squat.description, targetSets: 3, repsMin: 5,
                            notes: "Item notes \(script)")
                    ]))
            let program = try await portal.coaching.createProgram(
                world.coach, id: "",
                ProgramDraft(
                    name: "Program \(script)", notes: "Program notes \(script)", weeks: 1,
                    days: [.init(week: 1, weekday: 1, templateID: template.id.description)]))
            _ = try await portal.coaching.assign(
                world.coach, client: world.client, templateID: "", programID: program.id.description,
                note: "Assigned \(script)")

            let coach = try await portal.signedIn("carla")
            try await coach.get("/clients")
            try await coach.post("/invites", [("note", "Invite \(script)")])
            let invited = try await coach.get("/clients")
            let coachPages: [(String, PortalPage, [String])] = [
                ("the new invite", invited, ["Invite \(Self.escaped)", "Lena \(Self.escaped)"]),
                (
                    "the client list", try await coach.get("/clients"),
                    ["Lena \(Self.escaped)", "Carla \(Self.escaped)"]
                ),
                (
                    "the client", try await coach.get("/clients/\(world.client)"),
                    ["Day \(Self.escaped)", "Program \(Self.escaped)", "Assigned \(Self.escaped)"]
                ),
                (
                    "the workout", try await coach.get("/clients/\(world.client)/workouts/\(workout.id)"),
                    ["Day \(Self.escaped)", "Zercher \(Self.escaped)", "Lifter says \(Self.escaped)"]
                ),
                (
                    "progress", try await coach.get("/clients/\(world.client)/progress?exercise=\(custom.id)"),
                    ["Zercher \(Self.escaped)"]
                ),
                ("templates", try await coach.get("/templates"), ["Template \(Self.escaped)"]),
                (
                    "the template editor", try await coach.get("/templates/\(template.id)"),
                    ["Template \(Self.escaped)", "Template notes \(Self.escaped)", "Item notes \(Self.escaped)"]
                ),
                ("programs", try await coach.get("/programs"), ["Program \(Self.escaped)"]),
                (
                    "the program editor", try await coach.get("/programs/\(program.id)"),
                    ["Program \(Self.escaped)", "Program notes \(Self.escaped)", "Template \(Self.escaped)"]
                ),
                ("the profile", try await coach.get("/profile"), ["Bio \(Self.escaped)"]),
                ("ending the link", try await coach.get("/clients/\(world.client)/end"), ["Lena \(Self.escaped)"]),
            ]
            let lifter = try await portal.signedIn("lena")
            let lifterPages: [(String, PortalPage, [String])] = [
                ("the lifter's coaches", try await lifter.get("/coaches"), ["Carla \(Self.escaped)"]),
                ("the access log", try await lifter.get("/access-log"), ["Carla \(Self.escaped)"]),
            ]
            for (name, page, shown) in coachPages + lifterPages {
                #expect(page.status == .ok, "\(name): \(page.status)")
                // The portal's own scripts are files of its own (`/assets/…`); no other may be there.
                let others = page.html.replacingOccurrences(of: #"<script src="/assets/"#, with: "")
                #expect(!others.contains("<script"), "\(name) has a <script> element")
                for text in shown {
                    #expect(page.html.contains(text), "\(name) does not show \(text)")
                }
            }
        }
    }
}
