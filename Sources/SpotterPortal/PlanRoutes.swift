import Foundation
import Hummingbird
import SpotterCore

/// A coach's templates and programs: list, create, edit, copy, delete, and who has each.
///
/// The editors work without JavaScript: the whole draft travels in the form, and each button
/// (add an exercise, remove or move a row, change the number of weeks) posts it back to be shown
/// again changed; only "Save" asks `TemplateService` or `CoachingService` to store it. A refused
/// save shows the draft as typed with each error beside its field.
struct PlanRoutes {
    let coaching: CoachingService
    let training: TrainingServices
    let discover: DiscoverService
    let pages: Pages

    func add(to router: Router<PortalContext>) {
        router.get("/templates") { request, context in
            try await templatesPage(try coach(context), deleted: request.uri.queryParameters.get("deleted") != nil)
        }
        router.get("/templates/new") { _, context in
            let session = try coach(context)
            return editor(session, TemplateEditor(id: "", version: "", name: "", notes: "", rows: []))
        }
        router.get("/templates/:template") { request, context in
            let session = try coach(context)
            let template = try await training.templates.get(
                session.principal, id: try context.parameters.require("template"))
            var editor = TemplateEditor(template, unit: session.profile.unit)
            editor.saved = request.uri.queryParameters.get("saved") != nil
            editor.unchanged = request.uri.queryParameters.get("unchanged") != nil
            return self.editor(session, editor)
        }
        router.post("/templates/edit") { _, context in try await editTemplate(context) }
        router.post("/templates/:template/copy") { _, context in
            let session = try coach(context)
            let copy = try await training.templates.copy(
                session.principal, id: try context.parameters.require("template"), newID: "", name: "")
            return Response.redirect(to: "/templates/\(copy.id)", type: .normal)
        }
        router.get("/templates/:template/delete") { _, context in
            let session = try coach(context)
            let template = try await training.templates.get(
                session.principal, id: try context.parameters.require("template"))
            // A training day of a program is not deleted under it (the store refuses): the page
            // says so and offers no button that would fail.
            let days = Self.programDays(try await coaching.programs(session.principal))
            let programs = Self.programs(using: template.id.description, in: days)
            let refusal =
                programs.isEmpty
                ? nil
                : "It is a training day of program\(programs.count > 1 ? "s" : "") \(programs.joined(separator: ", ")): "
                    + "take it out of the program first, or delete the program."
            return try await confirmDelete(
                session, days, kind: "template", id: template.id.description, name: template.content.name,
                assignedLoss: "they lose it at once", refusal: refusal)
        }
        router.post("/templates/:template/delete") { _, context in
            let session = try coach(context)
            do {
                try await training.templates.delete(session.principal, id: try context.parameters.require("template"))
            } catch SpotterError.failedPrecondition(let reason) {
                return try await templatesPage(session, error: "Not deleted: " + reason + ".", status: .conflict)
            }
            return Response.redirect(to: "/templates?deleted=1", type: .normal)
        }
        router.get("/programs") { request, context in
            try await programsPage(try coach(context), deleted: request.uri.queryParameters.get("deleted") != nil)
        }
        router.get("/programs/new") { _, context in
            let session = try coach(context)
            return try await programEditor(
                session, ProgramEditor(id: "", version: "", name: "", notes: "", weeks: 1, days: [:]))
        }
        router.get("/programs/:program") { request, context in
            let session = try coach(context)
            let program = try await coaching.ownProgram(
                session.principal, id: try context.parameters.require("program"))
            var editor = ProgramEditor(program)
            editor.saved = request.uri.queryParameters.get("saved") != nil
            return try await programEditor(session, editor)
        }
        router.post("/programs/edit") { _, context in try await editProgram(context) }
        router.post("/programs/:program/copy") { _, context in
            let session = try coach(context)
            let program = try await coaching.ownProgram(
                session.principal, id: try context.parameters.require("program"))
            let copy = try await coaching.createProgram(
                session.principal, id: "",
                ProgramDraft(
                    name: (program.content.name + " (copy)").prefix(storedLength: 100), notes: program.content.notes,
                    weeks: program.content.weeks,
                    days: program.content.days.map {
                        .init(week: $0.week, weekday: $0.weekday, templateID: $0.templateID.description)
                    }))
            return Response.redirect(to: "/programs/\(copy.id)", type: .normal)
        }
        router.get("/programs/:program/delete") { _, context in
            let session = try coach(context)
            let program = try await coaching.ownProgram(
                session.principal, id: try context.parameters.require("program"))
            return try await confirmDelete(
                session, Self.programDays(try await coaching.programs(session.principal)), kind: "program",
                id: program.id.description, name: program.content.name,
                assignedLoss: "they lose it at once, and whoever follows it stops")
        }
        router.post("/programs/:program/delete") { _, context in
            let session = try coach(context)
            try await coaching.deleteProgram(session.principal, id: try context.parameters.require("program"))
            return Response.redirect(to: "/programs?deleted=1", type: .normal)
        }
    }

    /// Asks before a template or program goes for good, naming the clients who have it.
    private func confirmDelete(
        _ session: PortalSession, _ days: ProgramDays, kind: String, id: String, name: String, assignedLoss: String,
        refusal: String? = nil
    ) async throws -> Response {
        let holders = try await holders(session, days)[id].map { $0.joined(separator: ", ") }
        let consequence =
            (holders.map { "It is assigned to \($0): \(assignedLoss). " } ?? "It is not assigned to anyone. ")
            + "It cannot be undone; copy it first to keep a version of it."
        return pages.render(
            "end_link", title: "Delete \(name)", session: session, current: "/\(kind)s",
            EndLinkPage(
                name: name, consequence: refusal ?? consequence, action: "/\(kind)s/\(id)/delete",
                back: "/\(kind)s", question: "Delete the \(kind)", button: "Delete \(kind)",
                refused: refusal != nil))
    }

    private func coach(_ context: PortalContext) throws -> PortalSession {
        try context.signedIn(as: .coach)
    }

    /// Who has which of the coach's templates and programs, each client once with how ("Ada (since
    /// Mon 2 Nov 2026; in Peaking block)"): a template also through each assigned program that
    /// trains with it (an edit reaches them too).
    private func holders(_ session: PortalSession, _ programTemplates: ProgramDays) async throws -> [String: [String]] {
        async let assignments = coaching.assignments(session.principal, client: "")
        async let links = coaching.links(session.principal, includeClosed: false)
        let names = Dictionary(try await links.map { ($0.lifterID, $0.lifterName) }) { first, _ in first }
        // Per item, its clients (by id: two may share a name) in the order met, each with how
        // they have it.
        var holders: [String: [(client: TenantID, name: String, how: [String])]] = [:]
        func add(_ item: String, _ client: TenantID, _ how: String) {
            if let index = holders[item, default: []].firstIndex(where: { $0.client == client }) {
                holders[item]![index].how.append(how)
            } else {
                holders[item, default: []].append((client, names[client] ?? "a former client", [how]))
            }
        }
        let format = Format(session.profile)
        for assignment in try await assignments {
            let client = assignment.lifterID
            switch assignment.item {
            case .template(let id):
                add(id.description, client, "since \(format.day(assignment.createdAt))")
            case .program(let id):
                add(id.description, client, "since \(format.day(assignment.createdAt))")
                guard let (program, templates) = programTemplates[id.description] else { continue }
                for template in templates.sorted() { add(template, client, "in \(program)") }
            }
        }
        return holders.mapValues { $0.map { "\($0.name) (\($0.how.joined(separator: "; ")))" } }
    }

    /// The coach's programs by id: each one's name and the templates of its days.
    typealias ProgramDays = [String: (name: String, templates: Set<String>)]

    private static func programDays(_ programs: [Program]) -> ProgramDays {
        Dictionary(
            programs.map { program in
                (
                    program.id.description,
                    (program.content.name, Set(program.content.days.map(\.templateID.description)))
                )
            }
        ) { first, _ in first }
    }

    /// The names of the programs that train with `template`, quoted.
    private static func programs(using template: String, in days: ProgramDays) -> [String] {
        days.values.filter { $0.templates.contains(template) }.map { "“\($0.name)”" }.sorted()
    }

    /// The public state of each of the coach's published templates or programs, by source id.
    private func publicStates(_ session: PortalSession, _ kind: PublicationKind) async throws -> [String: String] {
        var states: [String: String] = [:]
        for publication in try await discover.ownPublications(session.principal) where publication.kind == kind {
            guard let source = publication.sourceID else { continue }
            states[source.lowercasedString] = DiscoverRoutes.PublishPage.status(publication)
        }
        return states
    }

    // MARK: - Templates

    struct PlanList {
        struct Row {
            var id: String
            var name: String
            var detail: String
            var holders: String?
            /// Set once published: its version and followers.
            var publicState: String?
            /// The programs a template is a training day of.
            var usedIn: String? = nil
        }

        var rows: [Row]
        var kind: String
        var path: String
        var error: String?
        var notice: String?
    }

    private func templatesPage(
        _ session: PortalSession, error: String? = nil, status: HTTPResponse.Status = .ok, deleted: Bool = false
    ) async throws -> Response {
        let format = Format(session.profile)
        async let page = training.templates.list(
            session.principal, includeArchived: false, pageSize: 100, pageToken: "")
        let days = Self.programDays(try await coaching.programs(session.principal))
        let holders = try await holders(session, days)
        let states = try await publicStates(session, .template)
        let rows = try await page.items.map { template in
            let usedIn = Self.programs(using: template.id.description, in: days)
            return PlanList.Row(
                id: template.id.description, name: template.content.name,
                detail:
                    "\(Format.count(template.content.items.count, "exercise")) · version \(template.version) · changed \(format.day(template.updatedAt))",
                holders: holders[template.id.description].map { $0.joined(separator: ", ") },
                publicState: states[template.id.description],
                usedIn: usedIn.isEmpty ? nil : usedIn.joined(separator: ", "))
        }
        return pages.render(
            "plans", title: "Templates", session: session, status: status, current: "/templates",
            PlanList(
                rows: rows, kind: "template", path: "/templates", error: error,
                notice: deleted ? "The template is deleted." : nil))
    }

    struct TemplateEditor {
        struct Row {
            var index: Int
            var exercise: String
            var exerciseName: String
            var sets: String
            var repsMin: String
            var repsMax: String
            var rpe: String
            var rest: String
            var notes: String
            var time = ""
            var distance = ""
            /// "100 kg", "225 lb", "75%" or empty.
            var load = ""
            var place = WorkoutSection.main
            var circuit = ""
            var error: String?
            var first = false
            var last = false
            var sections: [Choice] {
                [("warm_up", "Warm-up"), ("main", "Main"), ("cool_down", "Cool-down")].map {
                    Choice(value: $0.0, label: $0.1, selected: place.rawValue == $0.0)
                }
            }
        }

        struct Choice {
            var value: String
            var label: String
            var selected: Bool
        }

        /// A circuit's rounds and rest; circuit k exists while a row names it.
        struct CircuitRow {
            var number: Int
            var rounds: String
            var rest: String
        }

        struct Found {
            var id: String
            var name: String
        }

        var id: String
        var version: String
        var name: String
        var notes: String
        var rows: [Row]
        var circuits: [CircuitRow] = []
        var hasCircuits: Bool { !circuits.isEmpty }
        var circuitError: String?
        var find = ""
        var found: [Found] = []
        var searched = false
        /// Find was pressed with no name typed.
        var findEmpty = false
        /// What `Templates.field` shows in the name input.
        var values: [String: String] = [:]
        var errors: [String: String] = [:]
        var error: String?
        var saved = false
        /// Saved with nothing changed: no new version was made.
        var unchanged = false
        /// The coach's unit: a load typed without one is in it.
        var unit = WeightUnit.kg

        init(id: String, version: String, name: String, notes: String, rows: [Row]) {
            self.id = id
            self.version = version
            self.name = name
            self.notes = notes
            self.rows = rows
        }

        init(_ template: Template, unit: WeightUnit) {
            self.init(
                id: template.id.description, version: String(template.version), name: template.content.name,
                notes: template.content.notes,
                rows: template.content.items.enumerated().map { index, item in
                    Row(
                        index: index, exercise: item.exerciseID.description,
                        exerciseName: template.exerciseNames[item.exerciseID] ?? "Exercise",
                        sets: String(item.targetSets), repsMin: String(item.repsMin), repsMax: String(item.repsMax),
                        rpe: item.targetRPE.map { "\($0)" } ?? "", rest: item.restSeconds.map(String.init) ?? "",
                        notes: item.notes, time: item.targetDurationSeconds.map(String.init) ?? "",
                        distance: item.targetDistanceMeters.map(String.init) ?? "",
                        load: item.targetLoad.map { Self.loadText($0, unit) } ?? "", place: item.section,
                        circuit: item.circuit == 0 ? "" : String(item.circuit))
                })
            self.unit = unit
            circuits = template.content.circuits.enumerated().map { index, circuit in
                CircuitRow(number: index + 1, rounds: String(circuit.rounds), rest: String(circuit.restSeconds))
            }
        }

        /// The draft as the form sent it.
        init(_ form: Form) {
            let exercises = form.all("exercise")
            func column(_ name: String) -> [String] {
                let values = form.all(name)
                return exercises.indices.map { values.indices.contains($0) ? values[$0] : "" }
            }
            let names = column("exercise_name")
            let sets = column("sets")
            let repsMin = column("reps_min")
            let repsMax = column("reps_max")
            let rpe = column("rpe")
            let rest = column("rest")
            let notes = column("item_notes")
            let times = column("time")
            let distances = column("distance")
            let loads = column("load")
            let sections = column("section")
            let circuitNumbers = column("circuit")
            self.init(
                id: form.text("id"), version: form.text("version"), name: form["name"] ?? "",
                notes: form["notes"] ?? "",
                rows: exercises.indices.map { index in
                    Row(
                        index: index, exercise: exercises[index], exerciseName: names[index], sets: sets[index],
                        repsMin: repsMin[index], repsMax: repsMax[index], rpe: rpe[index], rest: rest[index],
                        notes: notes[index], time: times[index], distance: distances[index], load: loads[index],
                        place: WorkoutSection(rawValue: sections[index]) ?? .main, circuit: circuitNumbers[index])
                })
            let rounds = form.all("circuit_rounds")
            let rests = form.all("circuit_rest")
            circuits = rounds.indices.map { index in
                CircuitRow(
                    number: index + 1, rounds: rounds[index], rest: rests.indices.contains(index) ? rests[index] : "")
            }
            find = form["find"] ?? ""
        }

        /// One circuit row for each number the rows use, up to the highest: new ones start at 3
        /// rounds without rest; circuits no row names any more are dropped from the end. Returns
        /// the numbers of the circuits it added.
        @discardableResult
        mutating func matchCircuits() -> [Int] {
            let highest = rows.compactMap { Int($0.circuit) }.filter { $0 > 0 && $0 <= 50 }.max() ?? 0
            if circuits.count > highest { circuits.removeLast(circuits.count - highest) }
            var added: [Int] = []
            while circuits.count < highest {
                circuits.append(CircuitRow(number: circuits.count + 1, rounds: "3", rest: "0"))
                added.append(circuits.count)
            }
            return added
        }

        var draft: TemplateDraft {
            TemplateDraft(
                name: name, notes: notes,
                items: rows.map { row in
                    let load = Self.load(row.load, unit: unit)
                    return TemplateItemDraft(
                        exerciseID: row.exercise, targetSets: Int(row.sets) ?? 0, repsMin: Int(row.repsMin) ?? 0,
                        repsMax: Int(row.repsMax) ?? 0, targetRPE: row.rpe.isEmpty ? nil : Double(row.rpe) ?? -1,
                        restSeconds: row.rest.isEmpty ? nil : Int(row.rest) ?? -1, notes: row.notes,
                        targetDurationSeconds: row.time.isEmpty ? nil : Int(row.time) ?? -1,
                        targetDistanceMeters: row.distance.isEmpty ? nil : Int(row.distance) ?? -1,
                        section: row.place, circuit: row.circuit.isEmpty ? 0 : Int(row.circuit) ?? -1,
                        targetWeight: load?.weight, targetPercentOfMax: load?.percent)
                },
                circuits: circuits.map {
                    TemplateCircuit(rounds: Int($0.rounds) ?? 0, restSeconds: $0.rest.isEmpty ? 0 : Int($0.rest) ?? -1)
                })
        }

        /// What was typed where a number belongs and is not one, as the API's violations would name
        /// it: said as "must be a whole number", not as the range the number was read as outside;
        /// a circuit number the editor cannot make a circuit for (the API's "must be 0" speaks of the
        /// empty field as 0); and a load that is none of the forms, or 0 (the API's answer names a
        /// field the editor does not have).
        /// Every problem of the form before it is sent: the numbers it cannot read, said as what
        /// they are, and the draft's other problems (not the same fields').
        var problems: [FieldViolation] {
            Validator(recorded: unreadableNumbers).violations { () throws(SpotterError) in _ = try draft.validated() }
        }

        var unreadableNumbers: [FieldViolation] {
            var violations: [FieldViolation] = []
            for (index, row) in rows.enumerated() {
                let path = "template.items[\(index)]."
                let whole: [(String, String)] = [
                    (row.sets, "target_sets"), (row.repsMin, "reps_min"), (row.repsMax, "reps_max"),
                    (row.rest, "rest_seconds"), (row.time, "target_duration_seconds"),
                    (row.distance, "target_distance_meters"), (row.circuit, "circuit"),
                ]
                for (text, field) in whole where !text.isEmpty && Int(text) == nil {
                    violations.append(.init(field: path + field, reason: "must be a whole number"))
                }
                if let circuit = Int(row.circuit), !(0...TimedWork.maximumCircuits).contains(circuit) {
                    violations.append(
                        .init(
                            field: path + "circuit",
                            reason: "must be from 1 to \(TimedWork.maximumCircuits), or empty for none"))
                }
                if !row.rpe.isEmpty, Double(row.rpe) == nil {
                    violations.append(.init(field: path + "target_rpe", reason: "must be a number such as 8 or 7.5"))
                }
                if let load = Self.load(row.load, unit: unit) {
                    if load.weight?.value == 0 {
                        // Said as the editor has it: there is no target_weight field to leave unset.
                        violations.append(
                            .init(
                                field: path + "target_weight.value",
                                reason: "must be more than 0; leave it empty for none"))
                    }
                } else {
                    violations.append(
                        .init(
                            field: path + "target_weight",
                            reason: "must be a weight such as 100 kg or 225 lb, or a share of the max such as 75%"))
                }
            }
            return violations
        }

        /// A load as the editor shows it: "102.5 kg" in the coach's unit, or "75%".
        static func loadText(_ load: TemplateLoad, _ unit: WeightUnit) -> String {
            switch load {
            case .weight(let weight): "\(weight.value(in: unit)) \(unit.rawValue)"
            case .percentOfMax(let percent): "\(percent)%"
            }
        }

        /// What the load field says: nothing, a weight ("100", "102.5 kg", "225 lb"; `unit` when it
        /// names none) or a percentage ("75%", "72,5 %"); `nil` when it is none of these. Numbers
        /// are digits with one decimal point or comma: no signs, no exponents.
        static func load(_ text: String, unit: WeightUnit) -> (weight: WeightDraft?, percent: Double?)? {
            let text = text.trimmingWhitespaces().lowercased()
            if text.isEmpty { return (nil, nil) }
            func number(_ text: Substring) -> Double? {
                var digits = text.trimmingWhitespaces()
                // A decimal comma ("72,5") is a decimal point; one before three digits ("1,000")
                // could be a thousands separator, and is not read either way.
                if let comma = digits.firstIndex(of: ","), !digits.contains(".") {
                    guard digits[digits.index(after: comma)...].count < 3 else { return nil }
                    digits = digits.replacingOccurrences(of: ",", with: ".")
                }
                guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
                    digits.filter({ $0 == "." }).count <= 1
                else { return nil }
                return Double(digits)
            }
            if text.hasSuffix("%") { return number(text.dropLast()).map { (nil, $0) } }
            for (suffix, named) in [("kg", WeightUnit.kg), ("lbs", .lb), ("lb", .lb)] where text.hasSuffix(suffix) {
                return number(text.dropLast(suffix.count)).map { (WeightDraft(value: $0, unit: named), nil) }
            }
            return number(Substring(text)).map { (WeightDraft(value: $0, unit: unit), nil) }
        }

        mutating func renumber() {
            for index in rows.indices {
                rows[index].index = index
                rows[index].first = index == 0
                rows[index].last = index == rows.count - 1
            }
        }
    }

    private func editor(_ session: PortalSession, _ editor: TemplateEditor, status: HTTPResponse.Status = .ok)
        -> Response
    {
        var editor = editor
        editor.renumber()
        editor.matchCircuits()
        editor.values = ["name": editor.name]
        return pages.render(
            "template_editor", title: editor.name.isEmpty ? "New template" : editor.name, session: session,
            status: status, current: "/templates", editor)
    }

    private func editTemplate(_ context: PortalContext) async throws -> Response {
        let session = try coach(context)
        let form = context.form
        var editor = TemplateEditor(form)
        editor.unit = session.profile.unit
        let newCircuits = editor.matchCircuits()
        // The buttons of found exercises send `add` with the exercise's id instead of an action.
        var action = form["action"] ?? (form["add"] == nil ? "" : "add")
        // Enter in any field presses the form's first button, the hidden Update: with a name typed
        // in "Add an exercise", the coach pressed Enter to find it.
        if action == "refresh" && !editor.find.trimmingWhitespaces().isEmpty { action = "find" }
        let index = Int(action.split(separator: ":").last ?? "") ?? -1
        switch action.split(separator: ":").first.map(String.init) ?? "" {
        case "remove" where editor.rows.indices.contains(index):
            editor.rows.remove(at: index)
        case "up" where index > 0 && editor.rows.indices.contains(index):
            editor.rows.swapAt(index, index - 1)
        case "down" where index >= 0 && index < editor.rows.count - 1:
            editor.rows.swapAt(index, index + 1)
        case "find":
            let query = editor.find.trimmingWhitespaces()
            // "No exercise matches" only after a name was looked for.
            editor.searched = !query.isEmpty
            editor.findEmpty = query.isEmpty
            if !query.isEmpty {
                let found = try await training.exercises.list(
                    session.principal, ExerciseFilter(query: query), pageSize: 20, pageToken: "")
                editor.found = found.items.map { .init(id: $0.id.description, name: $0.name) }
            }
        case "add":
            let id = form.text("add")
            let exercise = try await training.exercises.get(session.principal, id)
            editor.rows.append(
                .init(
                    index: editor.rows.count, exercise: exercise.id.description, exerciseName: exercise.name,
                    sets: "3", repsMin: "8", repsMax: "", rpe: "", rest: "", notes: ""))
            editor.find = ""
        case "save" where !newCircuits.isEmpty:
            // A circuit number typed just now has no rounds chosen yet: its fields are shown to
            // check before anything is saved, instead of saving 3 rounds the coach never saw.
            // The other fields' problems are said with it, so one more save is all it takes.
            Self.place(editor.problems.filter { !$0.field.contains("circuits") }, in: &editor)
            let named = newCircuits.map { "Circuit \($0)" }.joined(separator: " and ")
            editor.circuitError =
                "Not saved yet: \(named) \(newCircuits.count == 1 ? "is" : "are") new. Check the rounds (3 to start) and the rest, then save."
            return self.editor(session, editor, status: .badRequest)
        case "save":
            do {
                if !editor.unreadableNumbers.isEmpty { throw SpotterError.invalidArgument(editor.problems) }
                let version = Int64(editor.version)
                let template =
                    editor.id.isEmpty
                    ? try await training.templates.create(session.principal, id: "", editor.draft)
                    : try await training.templates.update(
                        session.principal, id: editor.id, editor.draft, expectedVersion: version)
                // To the template's own page: reloading it does not post the form again (which
                // made a second template when the first save had created one).
                // Sent back as it was: the page says so, rather than "saved as version" the same one.
                let unchanged = !editor.id.isEmpty && Int64(editor.version) == template.version
                return Response.redirect(
                    to: "/templates/\(template.id)?\(unchanged ? "unchanged" : "saved")=1", type: .normal)
            } catch SpotterError.invalidArgument(let violations) {
                Self.place(violations, in: &editor)
                return self.editor(session, editor, status: .badRequest)
            } catch SpotterError.failedPrecondition {
                editor.error =
                    "Someone changed this template while you edited it. Open it again to see the new version; your changes are below."
                return self.editor(session, editor, status: .conflict)
            }
        default:
            break
        }
        return self.editor(session, editor)
    }

    /// Puts each violation beside its field: the name, the notes or an exercise's row.
    static func place(_ violations: [FieldViolation], in editor: inout TemplateEditor) {
        for violation in violations {
            let message = SessionRoutes.sentence(violation)
            if violation.field.contains("circuits") {
                let number = rowIndex(violation.field).map { "Circuit \($0 + 1)" } ?? "Circuits"
                let field = violation.field.split(separator: ".").last.map(String.init) ?? ""
                let label = ["rounds": " rounds", "rest_seconds": " rest"][field] ?? ""
                editor.circuitError = [editor.circuitError, "\(number)\(label): \(violation.reason)."]
                    .compactMap { $0 }.joined(separator: " ")
            } else if let row = rowIndex(violation.field), editor.rows.indices.contains(row) {
                let field = violation.field.split(separator: ".").last.map(String.init) ?? ""
                let label = fieldLabels[field] ?? field
                // The API names the other bound by its field ("between reps_min and 100").
                let reason = violation.reason.replacingOccurrences(of: "reps_min", with: "“Reps from”")
                editor.rows[row].error = [editor.rows[row].error, "\(label): \(reason)."]
                    .compactMap { $0 }.joined(separator: " ")
            } else if violation.field.hasSuffix("name") {
                editor.errors["name"] = message
            } else if violation.field.hasSuffix("notes") {
                editor.errors["notes"] = message
            } else {
                let text =
                    violation.reason == "must contain at least one item"
                    ? "Add at least one exercise." : "Exercises: \(violation.reason)."
                editor.error = [editor.error, text].compactMap { $0 }.joined(separator: " ")
            }
        }
    }

    private static let fieldLabels = [
        "exercise_id": "Exercise", "target_sets": "Sets", "reps_min": "Reps from", "reps_max": "Reps to",
        "target_rpe": "RPE", "rest_seconds": "Rest", "notes": "Notes", "target_duration_seconds": "Time",
        "target_distance_meters": "Distance", "circuit": "Circuit", "target_weight": "Load", "value": "Load",
        "unit": "Load", "target_percent_of_max": "Load",
    ]

    /// `3` for `template.items[3].reps_min`.
    static func rowIndex(_ field: String) -> Int? {
        guard let open = field.firstIndex(of: "["), let close = field.firstIndex(of: "]"), open < close else {
            return nil
        }
        return Int(field[field.index(after: open)..<close])
    }

    // MARK: - Programs

    private func programsPage(_ session: PortalSession, deleted: Bool = false) async throws -> Response {
        let format = Format(session.profile)
        let programs = try await coaching.programs(session.principal)
        let holders = try await holders(session, Self.programDays(programs))
        let states = try await publicStates(session, .program)
        let rows = programs.filter { $0.ownerID == session.principal.tenantID }.map { program in
            PlanList.Row(
                id: program.id.description, name: program.content.name,
                detail:
                    "\(Format.count(program.content.weeks, "week")) · \(Format.count(program.content.days.count, "training day")) · version \(program.version) · changed \(format.day(program.updatedAt))",
                holders: holders[program.id.description].map { $0.joined(separator: ", ") },
                publicState: states[program.id.description])
        }
        return pages.render(
            "plans", title: "Programs", session: session, current: "/programs",
            PlanList(
                rows: rows, kind: "program", path: "/programs", notice: deleted ? "The program is deleted." : nil))
    }

    struct ProgramEditor {
        struct Week {
            var number: Int
            var days: [Day]
        }

        struct Day {
            var field: String
            var label: String
            var options: [Option]
            /// The chosen template's whole name, which its narrow menu cuts; empty for a rest day.
            var chosenName: String
        }

        struct Option {
            var value: String
            var label: String
            var selected: Bool
        }

        var id: String
        var version: String
        var name: String
        var notes: String
        var weeks: Int
        /// The number of weeks as typed, shown again as it was.
        var weeksText: String
        /// The weeks the grid showed when the form was sent: what it shows again while the typed
        /// number is refused, so no chosen day is lost.
        var shownWeeks: Int
        /// Template id per `week-weekday`.
        var days: [String: String]
        var grid: [Week] = []
        var hasTemplates = false
        var values: [String: String] = [:]
        var errors: [String: String] = [:]
        var error: String?
        var saved = false

        init(id: String, version: String, name: String, notes: String, weeks: Int, days: [String: String]) {
            self.id = id
            self.version = version
            self.name = name
            self.notes = notes
            self.weeks = weeks
            self.weeksText = String(weeks)
            self.shownWeeks = weeks
            self.days = days
        }

        init(_ program: Program) {
            self.init(
                id: program.id.description, version: String(program.version), name: program.content.name,
                notes: program.content.notes, weeks: program.content.weeks,
                days: Dictionary(
                    program.content.days.map { ("\($0.week)-\($0.weekday)", $0.templateID.description) }
                ) { first, _ in first })
        }

        init(_ form: Form) {
            var days: [String: String] = [:]
            var shown = 1
            for (name, value) in form.fields where name.hasPrefix("day-") {
                let key = name.dropFirst(4)
                if let week = key.split(separator: "-").first.flatMap({ Int($0) }), (1...52).contains(week) {
                    shown = max(shown, week)
                }
                if !value.isEmpty { days[String(key)] = value }
            }
            let typed = form.text("weeks")
            self.init(
                id: form.text("id"), version: form.text("version"), name: form["name"] ?? "",
                notes: form["notes"] ?? "", weeks: Int(typed.trimmingWhitespaces()) ?? 0, days: days)
            weeksText = typed
            shownWeeks = shown
        }

        /// Whether the typed number of weeks is one a program can have.
        var weeksValid: Bool { (1...52).contains(weeks) }

        static let weeksProblem = "Weeks must be a whole number from 1 to 52."

        /// The weeks past the typed number that have training days in the grid as sent: saving
        /// would drop them without the coach having seen the grid without them.
        var weeksDropped: [Int] {
            Set(days.keys.compactMap { $0.split(separator: "-").first.flatMap { Int($0) } }.filter { $0 > weeks })
                .sorted()
        }

        var draft: ProgramDraft {
            ProgramDraft(
                name: name, notes: notes, weeks: weeks,
                days: days.keys.sorted().compactMap { key in
                    let parts = key.split(separator: "-").compactMap { Int($0) }
                    // While the typed number is refused, the days the grid shows are still the
                    // program's (so only the number is said to be wrong).
                    guard parts.count == 2, parts[0] <= (weeksValid ? weeks : shownWeeks) else { return nil }
                    return .init(week: parts[0], weekday: parts[1], templateID: days[key] ?? "")
                })
        }
    }

    static let weekdays = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]

    private func programEditor(
        _ session: PortalSession, _ editor: ProgramEditor, status: HTTPResponse.Status = .ok
    ) async throws -> Response {
        var editor = editor
        let templates = try await training.templates.list(
            session.principal, includeArchived: false, pageSize: 100, pageToken: "")
        editor.hasTemplates = !templates.items.isEmpty
        editor.values = ["name": editor.name]
        editor.grid = (1...(editor.weeksValid ? editor.weeks : editor.shownWeeks)).map { week in
            ProgramEditor.Week(
                number: week,
                days: (1...7).map { weekday in
                    let key = "\(week)-\(weekday)"
                    let chosen = editor.days[key] ?? ""
                    return ProgramEditor.Day(
                        field: "day-\(key)", label: "Week \(week) \(Self.weekdays[weekday - 1])",
                        options: [.init(value: "", label: "Rest", selected: chosen.isEmpty)]
                            + templates.items.map {
                                .init(
                                    value: $0.id.description, label: $0.content.name,
                                    selected: $0.id.description == chosen)
                            },
                        chosenName: templates.items.first { $0.id.description == chosen }?.content.name ?? "")
                })
        }
        return pages.render(
            "program_editor", title: editor.name.isEmpty ? "New program" : editor.name, session: session,
            status: status, current: "/programs", editor)
    }

    private func editProgram(_ context: PortalContext) async throws -> Response {
        let session = try coach(context)
        var editor = ProgramEditor(context.form)
        if !editor.weeksValid {
            editor.errors["weeks"] = ProgramEditor.weeksProblem
        }
        guard context.form["action"] == "save" else {
            return try await programEditor(session, editor, status: editor.weeksValid ? .ok : .badRequest)
        }
        let dropped = editor.weeksDropped
        if editor.weeksValid, let last = dropped.last {
            // Typed over without pressing "Change the number of weeks": nothing is saved, and the
            // grid still shows the weeks it would have lost.
            let which = dropped.count == 1 ? "Week \(last) has" : "Weeks \(dropped[0])–\(last) have"
            editor.errors["weeks"] =
                "\(which) training days that \(Format.count(editor.weeks, "week")) would drop. "
                + "Press “Change the number of weeks” to see the program without them, then save."
            editor.weeks = editor.shownWeeks
            return try await programEditor(session, editor, status: .badRequest)
        }
        do {
            let program =
                editor.id.isEmpty
                ? try await coaching.createProgram(session.principal, id: "", editor.draft)
                : try await coaching.updateProgram(
                    session.principal, id: editor.id, editor.draft, expectedVersion: Int64(editor.version))
            return Response.redirect(to: "/programs/\(program.id)?saved=1", type: .normal)
        } catch SpotterError.invalidArgument(let violations) {
            for violation in violations {
                let field = violation.field.split(separator: ".").last.map(String.init) ?? ""
                // The number of weeks has its own sentence above.
                if field == "weeks" { continue }
                let key = ["name", "notes"].contains(field) ? field : "days"
                editor.errors[key] = [editor.errors[key], SessionRoutes.sentence(violation)]
                    .compactMap { $0 }.joined(separator: " ")
            }
            return try await programEditor(session, editor, status: .badRequest)
        } catch SpotterError.failedPrecondition {
            editor.error =
                "Someone changed this program while you edited it. Open it again to see the new version; your changes are below."
            return try await programEditor(session, editor, status: .conflict)
        }
    }
}
