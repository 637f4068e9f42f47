import Foundation
import SpotterCore
import SpotterTestSupport
import Testing

@Suite("Portal templates, programs and assignments")
struct PortalPlanTests {
    @Test(
        "a template is built without JavaScript: find and add exercises, move and remove rows, save; errors sit by their field"
    )
    func templateEditor() async throws {
        try await PortalHarness.with { portal in
            let coach = try await portal.account("carla", kind: .coach)
            let browser = try await portal.signedIn("carla")
            let new = try await browser.get("/templates/new")
            #expect(new.html.contains("No exercises yet"))
            #expect(new.html.contains("<h1>New template</h1>"))
            var fields: [(String, String)] = [("id", ""), ("version", ""), ("name", "Lower <A>"), ("notes", "")]
            let found = try await browser.post("/templates/edit", fields + [("find", "squat"), ("action", "find")])
            #expect(found.html.contains(#"name="add" value="\#(Catalog.squat)""#))
            // Enter in "Add an exercise" presses the form's first button, the hidden Update: with a
            // name typed there, that finds it too. No button but Save waits for a name.
            let entered = try await browser.post(
                "/templates/edit", fields + [("find", "squat"), ("action", "refresh")])
            #expect(entered.html.contains(#"name="add" value="\#(Catalog.squat)""#))
            #expect(!new.html.contains("No exercise matches"))
            let blank = try await browser.post("/templates/edit", fields + [("find", " "), ("action", "find")])
            #expect(blank.html.contains("Type the name of an exercise to find it."))
            #expect(!blank.html.contains("No exercise matches"))
            let none = try await browser.post("/templates/edit", fields + [("find", "zzzz"), ("action", "find")])
            #expect(none.html.contains("No exercise matches “zzzz”."))
            let editorForm = try #require(found.html.components(separatedBy: #"action="/templates/edit""#).last)
            let validated = editorForm.components(separatedBy: "<button").dropFirst()
                .filter { !$0.prefix { $0 != ">" }.contains("formnovalidate") }
            #expect(validated.map { $0.prefix { $0 != "<" } } == [#" name="action" value="save">Save template"#])
            let one = try await browser.post("/templates/edit", fields + [("add", Catalog.squat.description)])
            #expect(one.html.contains(#"<input type="hidden" name="exercise" value="\#(Catalog.squat)">"#))
            #expect(one.html.contains(#"value="Lower &lt;A&gt;""#), "the typed name stays, escaped")
            func row(_ id: ExerciseID, _ name: String, sets: String = "3", repsMin: String = "5") -> [(String, String)]
            {
                [
                    ("exercise", id.description), ("exercise_name", name), ("sets", sets), ("reps_min", repsMin),
                    ("reps_max", ""), ("rpe", ""), ("rest", ""), ("item_notes", ""),
                ]
            }
            fields += row(Catalog.squat, "Barbell Back Squat") + row(Catalog.deadlift, "Deadlift", repsMin: "0")
            let moved = try await browser.post("/templates/edit", fields + [("action", "up:1")])
            let order = [Catalog.deadlift, Catalog.squat].map {
                moved.html.range(of: #"name="exercise" value="\#($0)""#)!.lowerBound
            }
            #expect(order[0] < order[1], "the second row moved up")
            // A row number out of range changes nothing (and Int.max + 1 must not trap).
            for action in ["down:9223372036854775807", "up:-9223372036854775808", "remove:99", "down:1", "up:0"] {
                let unchanged = try await browser.post("/templates/edit", fields + [("action", action)])
                #expect(unchanged.status == .ok, "\(action)")
                #expect(unchanged.count(#"name="exercise" value=""#) == 2, "\(action)")
            }
            let refused = try await browser.post("/templates/edit", fields + [("action", "save")])
            #expect(refused.status == .badRequest)
            #expect(
                refused.html.contains("Reps from: must be between 1 and 100 (0 only with a target time or distance)."))
            #expect(refused.html.contains(#"name="reps_min" value="0""#), "what was typed stays")
            let upsideDown =
                Array(fields.prefix(4)) + [
                    ("exercise", Catalog.squat.description), ("exercise_name", "Barbell Back Squat"), ("sets", "3"),
                    ("reps_min", "8"), ("reps_max", "5"), ("rpe", ""), ("rest", ""), ("item_notes", ""),
                ]
            let range = try await browser.post("/templates/edit", upsideDown + [("action", "save")])
            #expect(range.html.contains("Reps to: must be between “Reps from” and 100."), "\(range.html)")
            let words =
                [("id", ""), ("version", ""), ("name", ""), ("notes", "")] + [
                    ("exercise", Catalog.squat.description), ("exercise_name", "Barbell Back Squat"), ("sets", "abc"),
                    ("reps_min", "5"), ("reps_max", ""), ("rpe", "hard"), ("rest", ""), ("item_notes", ""),
                    ("circuit", "x"),
                ]
            let unreadable = try await browser.post("/templates/edit", words + [("action", "save")])
            #expect(unreadable.status == .badRequest)
            for text in [
                "Sets: must be a whole number.", "RPE: must be a number such as 8 or 7.5.",
                "Circuit: must be a whole number.", "The name is required.",
            ] {
                #expect(unreadable.html.contains(text), "\(text)")
            }
            #expect(!unreadable.html.contains("between 1 and 20"), "said once, as what it is")
            #expect(
                try await portal.training.templates.list(coach, includeArchived: false, pageSize: 10, pageToken: "")
                    .items.isEmpty)

            let removed = try await browser.post("/templates/edit", fields + [("action", "remove:1")])
            #expect(!removed.html.contains(#"name="exercise" value="\#(Catalog.deadlift)""#))
            let fixed = Array(fields.prefix(4)) + row(Catalog.squat, "Barbell Back Squat", sets: "5")
            let saved = try await browser.post("/templates/edit", fixed + [("action", "save")])
            // Saved, then sent to the template's own page: a reload there does not save again.
            #expect(saved.status == .seeOther)
            let templates = try await portal.training.templates.list(
                coach, includeArchived: false, pageSize: 10, pageToken: "")
            let template = try #require(templates.items.first)
            #expect(templates.items.count == 1)
            #expect(saved.location == "/templates/\(template.id)?saved=1")
            #expect(try await browser.get(saved.location ?? "").html.contains("Saved as version 1."))
            #expect(!(try await browser.get("/templates/\(template.id)").html.contains("Saved as version")))
            #expect(template.content.name == "Lower <A>")
            #expect(template.content.items.map(\.targetSets) == [5])

            // Editing a version someone else changed meanwhile keeps the edit on the page.
            var stale = fixed
            stale[0] = ("id", template.id.description)
            stale[1] = ("version", "1")
            _ = try await portal.training.templates.update(
                coach, id: template.id.description,
                TemplateDraft(
                    name: "Changed elsewhere",
                    items: [TemplateItemDraft(exerciseID: Catalog.squat.description, targetSets: 1, repsMin: 1)]),
                expectedVersion: 1)
            let conflict = try await browser.post("/templates/edit", stale + [("action", "save")])
            #expect(conflict.status == .conflict)
            #expect(conflict.count("Someone changed this template while you edited it.") == 1, "not once per row")

            let list = try await browser.get("/templates")
            #expect(list.html.contains("Changed elsewhere"))
            let copied = try await browser.post("/templates/\(template.id)/copy")
            #expect(copied.status == .seeOther)
            #expect(try await browser.get(copied.location!).html.contains("Changed elsewhere (copy)"))
            // Deleting asks first, naming what goes; the list then says it is done.
            let list2 = try await browser.get("/templates")
            #expect(list2.html.contains(#"href="/templates/\#(template.id)/delete">Delete…</a>"#))
            #expect(!list2.html.contains(#"action="/templates/\#(template.id)/delete""#), "no one-click delete")
            let ask = try await browser.get("/templates/\(template.id)/delete")
            #expect(ask.html.contains("Delete the template Changed elsewhere?"), "\(ask.html)")
            #expect(ask.html.contains("It is not assigned to anyone. It cannot be undone"))
            #expect(
                try await portal.training.templates.get(coach, id: template.id.description).content.name
                    == "Changed elsewhere")
            let deleted = try await browser.post("/templates/\(template.id)/delete")
            #expect(deleted.location == "/templates?deleted=1")
            #expect(try await browser.get("/templates?deleted=1").html.contains("The template is deleted."))
        }
    }

    @Test(
        "the template editor's load takes a weight in either unit (the coach's when none is named) or a percentage of the max"
    )
    func loadsInTheEditor() async throws {
        try await PortalHarness.with { portal in
            let coach = try await portal.account("carla", kind: .coach)
            let browser = try await portal.signedIn("carla")
            func row(_ id: ExerciseID, _ name: String, load: String) -> [(String, String)] {
                [
                    ("exercise", id.description), ("exercise_name", name), ("sets", "3"), ("reps_min", "5"),
                    ("reps_max", ""), ("load", load), ("rpe", ""), ("rest", ""), ("item_notes", ""),
                ]
            }
            _ = try await browser.get("/templates/new")
            let head = [("id", ""), ("version", ""), ("name", "Heavy"), ("notes", "")]
            let unreadable = try await browser.post(
                "/templates/edit",
                head + row(Catalog.squat, "Barbell Back Squat", load: "heavy")
                    + row(Catalog.deadlift, "Deadlift", load: "150%") + row(Catalog.benchPress, "Bench", load: "0 kg")
                    + [("action", "save")])
            #expect(unreadable.status == .badRequest)
            #expect(
                unreadable.html.contains(
                    "Load: must be a weight such as 100 kg or 225 lb, or a share of the max such as 75%."))
            #expect(unreadable.html.contains("Load: must be a percentage from 1 to 120, in steps of 0.5."))
            #expect(unreadable.html.contains("Load: must be more than 0; leave it empty for none."))
            #expect(!unreadable.html.contains("target_weight"), "no field name the coach never saw")
            #expect(unreadable.html.contains(#"name="load" value="heavy""#), "what was typed stays")

            let saved = try await browser.post(
                "/templates/edit",
                head + row(Catalog.squat, "Barbell Back Squat", load: "75 %")
                    + row(Catalog.benchPress, "Bench", load: "225 lbs") + row(Catalog.deadlift, "Deadlift", load: "140")
                    + row(Catalog.overheadPress, "Press", load: "") + [("action", "save")])
            #expect(saved.status == .seeOther)
            let template = try #require(
                try await portal.training.templates.list(coach, includeArchived: false, pageSize: 10, pageToken: "")
                    .items.first)
            #expect(
                template.content.items.map(\.targetLoad) == [
                    .percentOfMax(75), .weight(Mass(225, .lb)), .weight(Mass(140, .kg)), nil,
                ])
            // Shown back in the coach's unit (kilograms): 225 lb is 102.06 kg.
            let page = try await browser.get("/templates/\(template.id)")
            for value in ["75%", "102.06 kg", "140 kg"] {
                #expect(page.html.contains(#"name="load" value="\#(value)""#), "\(value)")
            }
        }
    }

    @Test("the template editor keeps times, distances, sections and circuits; a circuit number adds its rounds line")
    func circuitsInTheEditor() async throws {
        try await PortalHarness.with { portal in
            let world = try await CoachWorld.build(portal)
            let plank = ExerciseID("c0000000-0000-4000-8000-000000000077")!
            let template = try await portal.training.templates.create(
                world.coach, id: "",
                TemplateDraft(
                    name: "Core circuit",
                    items: [
                        TemplateItemDraft(
                            exerciseID: plank.description, targetSets: 1, repsMin: 0, targetDurationSeconds: 45,
                            circuit: 1),
                        TemplateItemDraft(
                            exerciseID: Catalog.squat.description, targetSets: 1, repsMin: 10, circuit: 1),
                        TemplateItemDraft(
                            exerciseID: Catalog.deadlift.description, targetSets: 1, repsMin: 0,
                            targetDistanceMeters: 400, section: .coolDown),
                    ],
                    circuits: [TemplateCircuit(rounds: 4, restSeconds: 90)]))
            let browser = try await portal.signedIn("carla")
            let page = try await browser.get("/templates/\(template.id)")
            #expect(page.html.contains(#"name="time" value="45""#))
            #expect(page.html.contains(#"name="distance" value="400""#))
            #expect(page.html.contains(#"<option value="cool_down" selected>Cool-down</option>"#))
            #expect(page.html.contains(#"name="circuit_rounds" value="4""#))
            #expect(page.html.contains(#"name="circuit_rest" value="90""#))

            // Saving the page as it is changes nothing; a second circuit number adds its line.
            func fields(_ circuits: [String], rounds: [String]) -> [(String, String)] {
                var fields: [(String, String)] = [
                    ("id", template.id.description), ("version", String(template.version)), ("name", "Core circuit"),
                    ("notes", ""),
                ]
                let rows: [(ExerciseID, String, String, String, String, String)] = [
                    (plank, "Plank", "0", "45", "", "main"), (Catalog.squat, "Squat", "10", "", "", "main"),
                    (Catalog.deadlift, "Deadlift", "0", "", "400", "cool_down"),
                ]
                for (index, row) in rows.enumerated() {
                    fields += [
                        ("exercise", row.0.description), ("exercise_name", row.1), ("sets", "1"), ("reps_min", row.2),
                        ("reps_max", ""), ("rpe", ""), ("rest", ""), ("time", row.3), ("distance", row.4),
                        ("section", row.5), ("circuit", circuits[index]), ("item_notes", ""),
                    ]
                }
                return fields + rounds.flatMap { [("circuit_rounds", $0), ("circuit_rest", "90")] }
            }
            let saved = try await browser.post(
                "/templates/edit", fields(["1", "1", ""], rounds: ["4"]) + [("action", "save")])
            // Nothing changed, so no new version either, and the page says so.
            #expect(saved.location == "/templates/\(template.id)?unchanged=1")
            let unchanged = try await browser.get(saved.location ?? "")
            #expect(unchanged.html.contains("Nothing had changed: it stays version 1."))
            #expect(!unchanged.html.contains("Saved as version"))
            #expect(
                try await portal.training.templates.get(world.coach, id: template.id.description).content
                    == template.content)
            let second = try await browser.post(
                "/templates/edit", fields(["1", "1", "2"], rounds: ["4"]) + [("action", "refresh")])
            #expect(second.html.contains("Circuit 2"))
            #expect(second.count(#"name="circuit_rounds""#) == 2)
            // Saved straight away, a new circuit number shows its rounds to check first: 3 rounds
            // the coach never saw are not stored.
            let unseen = try await browser.post(
                "/templates/edit", fields(["1", "1", "2"], rounds: ["4"]) + [("action", "save")])
            #expect(unseen.status == .badRequest)
            #expect(
                unseen.html.contains(
                    "Not saved yet: Circuit 2 is new. Check the rounds (3 to start) and the rest, then save."))
            #expect(unseen.html.contains(#"name="circuit_rounds" value="3""#))
            // With another field's problem, both are said at once, not one save after the other.
            let withBadName = try await browser.post(
                "/templates/edit",
                fields(["1", "1", "2"], rounds: ["4"]).map { $0.0 == "name" ? ("name", "") : $0 } + [("action", "save")]
            )
            #expect(withBadName.html.contains("Not saved yet: Circuit 2 is new."))
            #expect(withBadName.html.contains("The name is required."), "\(withBadName.html.suffix(3_000))")
            // A circuit across sections is refused beside the circuits, and nothing is stored.
            let refused = try await browser.post(
                "/templates/edit", fields(["1", "1", "1"], rounds: ["4"]) + [("action", "save")])
            #expect(refused.status == .badRequest)
            #expect(refused.html.contains("Circuit 1: must have all its items in one section."))
            // A circuit number the editor has no circuit for is refused as the form calls the field.
            for typed in ["51", "-1"] {
                let outside = try await browser.post(
                    "/templates/edit", fields(["1", "1", typed], rounds: ["4"]) + [("action", "save")])
                #expect(outside.status == .badRequest)
                #expect(outside.html.contains("Circuit: must be from 1 to 50, or empty for none."), "\(typed)")
                #expect(!outside.html.contains("must be 0"), "\(typed)")
            }
            #expect(try await portal.training.templates.get(world.coach, id: template.id.description).version == 1)
        }
    }

    @Test("a program's week grid picks a template or rest per day; saved, assigned to a client, unassigned")
    func programAndAssignment() async throws {
        try await PortalHarness.with { portal in
            let world = try await CoachWorld.build(portal)
            let template = try await portal.training.templates.create(
                world.coach, id: "",
                TemplateDraft(
                    name: "Heavy day",
                    items: [TemplateItemDraft(exerciseID: Catalog.squat.description, targetSets: 5, repsMin: 5)]))
            let browser = try await portal.signedIn("carla")
            #expect(try await browser.get("/programs/new").count("<select name=\"day-") == 7)
            let base: [(String, String)] = [("id", ""), ("version", ""), ("name", "Peaking block"), ("notes", "")]
            let grown = try await browser.post("/programs/edit", base + [("weeks", "2"), ("action", "weeks")])
            #expect(grown.count("<select name=\"day-") == 14, "\(grown.status) \(grown.html)")
            // A number of weeks a program cannot have is refused beside the field, as typed, and the
            // grid keeps the weeks it showed with the days chosen in them.
            let twoWeeks = (1...2).flatMap { week in (1...7).map { ("day-\(week)-\($0)", "") } }
            let chosen = twoWeeks.map { $0.0 == "day-2-3" ? ($0.0, template.id.description) : $0 }
            for typed in ["abc", "-2", "100", ""] {
                let refused = try await browser.post(
                    "/programs/edit", base + chosen + [("weeks", typed), ("action", "weeks")])
                #expect(refused.status == .badRequest, "\(typed)")
                #expect(refused.html.contains("Weeks must be a whole number from 1 to 52."), "\(typed)")
                #expect(refused.html.contains(#"name="weeks" value="\#(typed)""#), "\(typed)")
                #expect(refused.count("<select name=\"day-") == 14, "\(typed)")
                #expect(
                    refused.html.contains(
                        #"<select name="day-2-3" aria-label="Week 2 Wed" data-name="day-2-3-name"><option value="">Rest</option><option value="\#(template.id)" selected>"#
                    ),
                    "\(typed)")
                let unsaved = try await browser.post(
                    "/programs/edit", base + chosen + [("weeks", typed), ("action", "save")])
                #expect(unsaved.status == .badRequest, "\(typed)")
                #expect(unsaved.html.contains("Weeks must be a whole number from 1 to 52."), "\(typed)")
                #expect(!unsaved.html.contains("Weeks must be between"), "one sentence for the field")
                #expect(!unsaved.html.contains("at least one training day"), "Wednesday of week 2 is one")
            }
            // One week typed over two without pressing "Change the number of weeks": saving would
            // drop week 2's Wednesday unseen, so nothing is saved and week 2 is still shown.
            let shrunk = try await browser.post("/programs/edit", base + chosen + [("weeks", "1"), ("action", "save")])
            #expect(shrunk.status == .badRequest)
            #expect(
                shrunk.html.contains(
                    "Week 2 has training days that 1 week would drop. Press “Change the number of weeks” to see the program without them, then save."
                ), "\(shrunk.html.suffix(3_000))")
            #expect(shrunk.html.contains(#"name="weeks" value="1""#) && shrunk.count("<select name=\"day-") == 14)
            #expect(try await !portal.coaching.programs(world.coach).contains { $0.content.name == "Peaking block" })
            #expect(grown.html.contains(#"<button name="action" value="weeks" class="secondary" formnovalidate>"#))
            let empty = try await browser.post("/programs/edit", base + [("weeks", "2"), ("action", "save")])
            #expect(empty.status == .badRequest)
            #expect(empty.html.contains("The program must name at least one training day."))
            let saved = try await browser.post(
                "/programs/edit",
                base + [
                    ("weeks", "2"), ("day-1-1", template.id.description), ("day-2-4", template.id.description),
                    ("action", "save"),
                ])
            let program = try #require(
                try await portal.coaching.programs(world.coach).first { $0.content.name == "Peaking block" })
            #expect(saved.location == "/programs/\(program.id)?saved=1")
            let savedPage = try await browser.get(saved.location ?? "").html
            #expect(savedPage.contains("Saved as version 1."))
            // Each chosen day names its template in full under its narrow menu; a rest day names none.
            #expect(
                savedPage.contains(#"<span class="day-name" id="day-1-1-name" aria-hidden="true">Heavy day</span>"#)
                    && savedPage.contains(#"<span class="day-name" id="day-1-2-name" aria-hidden="true"></span>"#),
                "\(savedPage.suffix(3_000))")
            // A template the program trains with is not deleted under it (its days would turn into
            // rest days for every client it is assigned to); the program's name says why.
            // Its delete page says why and offers no button that would fail.
            let askKept = try await browser.get("/templates/\(template.id)/delete")
            #expect(
                askKept.html.contains(
                    "It is a training day of program “Peaking block”: take it out of the program first, or delete the program."
                ), "\(askKept.html.suffix(1_500))")
            #expect(!askKept.html.contains("<button class=\"danger\">"))
            #expect(
                askKept.html.contains("<h1>Heavy day cannot be deleted</h1>")
                    && !askKept.html.contains("Delete the template"))
            let kept = try await browser.post("/templates/\(template.id)/delete")
            #expect(kept.status == .conflict)
            #expect(
                kept.html.contains(
                    "Not deleted: this template is a training day of program &quot;Peaking block&quot;: take it out of the program first, or delete the program."
                ), "\(kept.html.suffix(2_000))")
            #expect(try await portal.training.templates.get(world.coach, id: template.id.description).version == 1)
            #expect(program.content.days.map { [$0.week, $0.weekday] } == [[1, 1], [2, 4]])

            let client = try await browser.get("/clients/\(world.client)")
            // The plans sit under the history: a link at the top leads there.
            #expect(client.html.contains(##"<a href="#plans">Plans ↓</a>"##) && client.html.contains(#"id="plans""#))
            #expect(client.html.contains(#"<option value="program:\#(program.id)">Program: Peaking block</option>"#))
            let assigned = try await browser.post(
                "/clients/\(world.client)/assignments", [("item", "program:\(program.id)"), ("note", "Start Monday")])
            #expect(assigned.status == .seeOther)
            // The client's page then says what was done; a made-up id says nothing.
            let location = try #require(assigned.location)
            #expect(
                location.hasPrefix("/clients/\(world.client)?assigned=") && location.hasSuffix("#plans"), "\(location)")
            let notice = try await browser.get(String(location.prefix { $0 != "#" })).html
            #expect(
                notice.contains("Peaking block is assigned to Lena &lt;script&gt;")
                    && notice.contains("&lt;/script&gt;, who sees it in the app now."), "\(notice)")
            let madeUp = try await browser.get("/clients/\(world.client)?assigned=\(UUID().uuidString)")
            #expect(madeUp.status == .ok && !madeUp.html.contains("is assigned to"))
            // Assigning it again is refused beside the form, on the client's page.
            let twice = try await browser.post(
                "/clients/\(world.client)/assignments", [("item", "program:\(program.id)"), ("note", "Again")])
            #expect(twice.html.contains("That is already assigned to this client."), "\(twice.status)")
            #expect(twice.html.contains(#"id="plans""#) && twice.html.contains("Again"))
            // A template of the coach's custom exercise: assigned, and the exercise shared with the client.
            let custom = try await portal.training.exercises.create(
                world.coach, id: "",
                ExerciseDraft(
                    name: "Sled Drag", category: .carry, muscleGroup: .fullBody, equipment: .other, instructions: ""))
            let sled = try await portal.training.templates.create(
                world.coach, id: "",
                TemplateDraft(
                    name: "Sled day",
                    items: [TemplateItemDraft(exerciseID: custom.id.description, targetSets: 3, repsMin: 1)]))
            let sledAssigned = try await browser.post(
                "/clients/\(world.client)/assignments", [("item", "template:\(sled.id)"), ("note", "")])
            #expect(sledAssigned.status == .seeOther)
            #expect(try await portal.training.exercises.get(world.lifter, custom.id.description).name == "Sled Drag")
            let plans = try await browser.get("/clients/\(world.client)")
            #expect(plans.html.contains("Peaking block</strong> · program version 1"))
            #expect(plans.html.contains("Sled day"))
            #expect(try await portal.coaching.assignments(world.lifter, client: "").count == 2)
            #expect(try await browser.get("/programs").html.contains("Assigned to Lena &lt;script&gt;"))
            // A template the assigned program trains with is the client's too: an edit reaches them.
            let templates = try await browser.get("/templates").html
            #expect(templates.contains("&lt;/script&gt; (in Peaking block)"), "\(templates)")
            #expect(templates.contains("A training day of “Peaking block”."))
            // Assigned on its own too: the client is named once, with both.
            _ = try await browser.post(
                "/clients/\(world.client)/assignments", [("item", "template:\(template.id)"), ("note", "")])
            let both = try await browser.get("/templates").html
            #expect(
                both.contains("&lt;/script&gt; (since ") && both.contains("; in Peaking block).")
                    || both.contains("&lt;/script&gt; (in Peaking block; since "), "\(both)")
            // Deleting the program asks first, naming the client it is assigned to.
            let askProgram = try await browser.get("/programs/\(program.id)/delete")
            #expect(askProgram.html.contains("Delete the program Peaking block?"))
            #expect(
                askProgram.html.contains("It is assigned to Lena &lt;script&gt;"),
                "\(askProgram.html.suffix(1_500))")
            #expect(askProgram.html.contains("whoever follows it stops"))
            #expect(plans.html.contains("Unassign…</a>") && !plans.html.contains(">Unassign</button>"))
            for assignment in try await portal.coaching.assignments(world.coach, client: world.client) {
                let ask = try await browser.get(
                    "/clients/\(world.client)/assignments/\(assignment.id.uuidString)/delete")
                #expect(ask.html.contains("Unassign \(assignment.name) from Lena"), "\(ask.html.suffix(1_500))")
                #expect(
                    ask.html.contains(
                        assignment.item == .program(program.id)
                            ? "stops following it, if they do" : "no longer sees the template"))
                let unassigned = try await browser.post(
                    "/clients/\(world.client)/assignments/\(assignment.id.uuidString)/delete")
                #expect(unassigned.status == .seeOther)
                #expect(unassigned.location == "/clients/\(world.client)?unassigned=1#plans")
            }
            let unassignedNotice = try await browser.get("/clients/\(world.client)?unassigned=1").html
            #expect(
                unassignedNotice.contains("Unassigned: Lena &lt;script&gt;")
                    && unassignedNotice.contains("&lt;/script&gt; no longer sees it."), "\(unassignedNotice)")
            #expect(try await portal.coaching.assignments(world.lifter, client: "").isEmpty)
        }
    }
}
