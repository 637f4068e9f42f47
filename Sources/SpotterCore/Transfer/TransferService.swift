import Crypto
import Foundation

/// What happened to one workout an import tried to store.
public enum ImportOutcome: Sendable, Equatable {
    case added
    /// Stored before with the same content (an earlier import of the same file).
    case unchanged
    /// Its id is taken by a workout with other content.
    case conflict
    /// It was stored under its id and deleted since: it stays deleted.
    case deleted
}

/// The lifter's data in bulk, under row-level security.
public protocol TransferStore: Sendable {
    /// The caller's export document without workouts.
    func exportHeader(_ principal: Principal, now: Date) async throws -> TenantExport
    /// Live workouts with their sets, oldest first, after `cursor`.
    func exportWorkouts(_ principal: Principal, after cursor: HistoryCursor?, limit: Int) async throws
        -> [ExportedWorkout]
    /// The catalog and the caller's live custom exercises (archived ones too).
    func exerciseIndex(_ principal: Principal) async throws -> [Exercise]
    /// The templates an imported workout may name: the caller's live ones, and any a stored workout
    /// of the caller's names already (a coach's assigned template, say), so that importing one's
    /// own export again finds those workouts unchanged.
    func templateIDs(_ principal: Principal) async throws -> Set<TemplateID>
    /// Stores one of the caller's own programs under its id (an export's), as
    /// `CoachingStore.createProgram` does: `false` when it is stored with this content already.
    func createProgram(_ principal: Principal, _ id: ProgramID, _ content: ProgramContent, now: Date) async throws
        -> Bool
    /// Stores each workout as `WorkoutStore.logWorkout` does, all in one transaction.
    func logWorkouts(_ principal: Principal, _ workouts: [(WorkoutID, WorkoutContent)], now: Date) async throws
        -> [ImportOutcome]
}

/// What an import did.
public struct ImportReport: Sendable, Equatable {
    public struct Skipped: Sendable, Equatable {
        public var name: String
        public var startedAt: Date
        public var reason: String
    }

    public var workoutsAdded = 0
    public var workoutsUnchanged = 0
    public var setsAdded = 0
    public var templatesAdded = 0
    /// The account's own programs stored (Spotter JSON).
    public var programsAdded = 0
    /// Body measurements stored, and those already stored with the same value (Spotter JSON).
    public var measurementsAdded = 0
    public var measurementsUnchanged = 0
    public var skipped: [Skipped] = []
    public var exercisesCreated: [String] = []
    public var notes: [String] = []
}

public enum ExportFormat: String, Sendable, CaseIterable {
    /// The whole account (`spotter-export`); every set, one row each; every template item; every
    /// body measurement. The raw value ends the file's name (`spotter-export.templates.csv`).
    case json, csv
    case templatesCSV = "templates.csv"
    case measurementsCSV = "measurements.csv"

    public var mediaType: String { self == .json ? "application/json" : "text/csv" }
}

/// Export of the whole account, import from Strong, Hevy and Spotter's own export.
public struct TransferService: Sendable {
    /// Workouts read per page while exporting, and stored per transaction while importing.
    public static let pageSize = 200
    /// The largest file an import reads.
    public static let maxImportBytes = 64 << 20

    private let store: any TransferStore
    private let exercises: ExerciseService
    private let templates: TemplateService
    private let body: BodyService
    private let contexts: any TenantContextStore
    private let now: @Sendable () -> Date

    public init(
        store: any TransferStore,
        exercises: ExerciseService,
        templates: TemplateService,
        body: BodyService,
        contexts: any TenantContextStore,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.store = store
        self.exercises = exercises
        self.templates = templates
        self.body = body
        self.contexts = contexts
        self.now = now
    }

    // MARK: Export

    /// The caller's account in `format`, handed to `emit` a page of workouts at a time.
    public func export(_ principal: Principal, format: ExportFormat, emit: (Data) async throws -> Void)
        async throws
    {
        let header = try await store.exportHeader(principal, now: now())
        switch format {
        case .json:
            var document = try TenantExport.encoder().encode(header)
            // Keys are sorted and "workouts" sorts last: the document ends `"workouts":[]}`.
            let tail = Data(#""workouts":[]}"#.utf8)
            precondition(document.suffix(tail.count) == tail, "the export document must end with its workouts")
            document.removeLast(2)  // keeps the "["
            try await emit(document)
            var first = true
            try await forEachPage(principal) { workouts in
                var chunk = Data()
                let encoder = TenantExport.encoder()
                for workout in workouts {
                    if !first { chunk.append(UInt8(ascii: ",")) }
                    first = false
                    chunk.append(try encoder.encode(workout))
                }
                try await emit(chunk)
            }
            try await emit(Data("]}\n".utf8))
        case .csv:
            let writer = ExportCSV(timeZone: TimeZone(identifier: header.profile.timeZone) ?? .gmt)
            try await emit(Data(ExportCSV.header.utf8))
            try await forEachPage(principal) { workouts in
                try await emit(Data(workouts.map(writer.rows).joined().utf8))
            }
        case .templatesCSV:
            try await emit(
                Data((ExportCSV.templateHeader + header.templates.map(ExportCSV.templateRows).joined()).utf8))
        case .measurementsCSV:
            let rows = (header.measurements ?? []).map { ExportCSV.measurementRow($0, unit: header.profile.unit) }
                .joined()
            try await emit(Data((ExportCSV.measurementHeader + rows).utf8))
        }
    }

    private func forEachPage(_ principal: Principal, _ body: ([ExportedWorkout]) async throws -> Void)
        async throws
    {
        var cursor: HistoryCursor?
        while true {
            let page = try await store.exportWorkouts(principal, after: cursor, limit: Self.pageSize)
            guard let last = page.last else { return }
            try await body(page)
            cursor = HistoryCursor(startedAt: last.startedAt, id: last.id)
            if page.count < Self.pageSize { return }
        }
    }

    // MARK: Import

    /// Reads `data` as `format` and stores what it holds. A file that cannot be read is
    /// `invalidArgument` naming `data` (and the row) and stores nothing; otherwise each workout
    /// is stored or reported.
    public func importWorkouts(
        _ principal: Principal, format: ImportFormat?, unit: WeightUnit?, timeZone: String = "", data: Data
    ) async throws -> ImportReport {
        guard let format else {
            throw SpotterError.invalid("format", "is required (STRONG_CSV, HEVY_CSV or SPOTTER_JSON)")
        }
        if !timeZone.isEmpty, let problem = CredentialRules.timeZoneProblem(timeZone) {
            throw SpotterError.invalid("time_zone", problem)
        }
        guard data.count <= Self.maxImportBytes else {
            throw SpotterError.invalid("data", "must be at most \(Self.maxImportBytes >> 20) MiB")
        }
        guard !data.isEmpty else { throw SpotterError.invalid("data", "is empty") }
        let context = try await principal.context(from: contexts)
        // Local times without a zone are read in the one given, else the profile's.
        let file = try Self.read(
            data, format: format, unit: unit ?? context.unit,
            timeZone: TimeZone(identifier: timeZone.isEmpty ? context.timeZone : timeZone) ?? .gmt)

        var report = ImportReport(notes: file.notes)
        var resolver = ExerciseResolver(tenant: principal.tenantID, index: try await store.exerciseIndex(principal))
        // A Spotter export's own custom exercises keep their ids.
        for exercise in file.customExercises where !resolver.has(exercise.id) {
            do {
                _ = try await exercises.create(principal, id: exercise.id.description, ExerciseDraft(exercise))
                if exercise.custom?.archivedAt != nil {
                    _ = try await exercises.archive(principal, id: exercise.id.description, archived: true)
                }
                resolver.add(exercise)
                report.exercisesCreated.append(exercise.name)
            } catch let error as SpotterError where error.isRefusal {
                report.notes.append("custom exercise \"\(exercise.name)\" was not created: \(error.reason)")
            }
        }
        var knownTemplates = try await store.templateIDs(principal)
        for template in file.templates where !knownTemplates.contains(template.id) {
            guard template.items.allSatisfy({ resolver.has($0.exerciseID) }) else {
                report.notes.append(
                    "template \"\(template.name)\" was not created: it uses an exercise the file does not define")
                continue
            }
            do {
                _ = try await templates.create(principal, id: template.id.description, TemplateDraft(template))
                if template.archivedAt != nil {
                    _ = try await templates.archive(principal, id: template.id.description, archived: true)
                }
                knownTemplates.insert(template.id)
                report.templatesAdded += 1
            } catch let error as SpotterError where error.isRefusal {
                report.notes.append("template \"\(template.name)\" was not created: \(error.reason)")
            }
        }
        // The account's own programs, once their training days' templates are there.
        for program in file.programs {
            do {
                guard program.content.days.allSatisfy({ knownTemplates.contains($0.templateID) }) else {
                    throw SpotterError.failedPrecondition("it trains with a template the file does not define")
                }
                let content = try ProgramDraft(program.content).validated()
                if try await store.createProgram(principal, program.id, content, now: now()) {
                    report.programsAdded += 1
                }
            } catch let error as SpotterError where error.isRefusal {
                report.notes.append("program \"\(program.content.name)\" was not created: \(error.reason)")
            }
        }

        var batch: [(WorkoutID, WorkoutContent, ImportedWorkout)] = []
        let now = now()
        for (index, workout) in file.workouts.enumerated() {
            var entries: [ExerciseID] = []
            for entry in workout.entries {
                entries.append(try await resolver.resolve(entry, principal: principal, exercises: exercises))
            }
            do {
                let prefix = "workouts[\(index)]."
                var content = try workout.draft(exerciseIDs: entries).validated(now: now, prefix: prefix)
                // Weights are exact already (a pound value converted once): they are kept to the
                // microgram, and only the API's upper bound applies.
                var validator = Validator()
                for (entryIndex, entry) in workout.entries.enumerated() {
                    for (setIndex, set) in entry.sets.enumerated() {
                        validator.check(
                            (Mass.zero...Mass.maximum).contains(set.weight ?? .zero),
                            "\(prefix)exercises[\(entryIndex)].sets[\(setIndex)].weight",
                            "must be between 0 and 2000 kg")
                        content.exercises[entryIndex].sets[setIndex].weight = set.weight
                    }
                }
                try validator.validate()
                if let template = workout.templateID, knownTemplates.contains(template) {
                    content.templateID = template
                }
                batch.append(
                    (
                        workout.id ?? .derived(principal, "workout", workout.key, namespace: "spotter-import"), content,
                        workout
                    ))
            } catch {
                report.skipped.append(.init(name: workout.name, startedAt: workout.startedAt, reason: error.reason))
            }
            if batch.count == Self.pageSize || index == file.workouts.count - 1 {
                let outcomes = try await store.logWorkouts(principal, batch.map { ($0.0, $0.1) }, now: now)
                for (item, outcome) in zip(batch, outcomes) {
                    switch outcome {
                    case .added:
                        report.workoutsAdded += 1
                        report.setsAdded += item.1.exercises.reduce(0) { $0 + $1.sets.count }
                    case .unchanged: report.workoutsUnchanged += 1
                    case .deleted:
                        report.skipped.append(
                            .init(
                                name: item.2.name, startedAt: item.2.startedAt,
                                reason: "it was imported before and you deleted it since, so it stays deleted"))
                    case .conflict:
                        report.skipped.append(
                            .init(
                                name: item.2.name, startedAt: item.2.startedAt,
                                reason: item.2.id == nil
                                    ? "a different workout with this start and name is already stored"
                                    : "this workout is stored with other content (changed since the export)"))
                    }
                }
                batch.removeAll(keepingCapacity: true)
            }
        }
        report.exercisesCreated += resolver.created
        try await importMeasurements(principal, file.measurements, into: &report)
        return report
    }

    /// A Spotter export's body measurements, under their ids: a day that already has the metric's
    /// value keeps it (said in the notes when the file's differs), so importing twice adds nothing.
    private func importMeasurements(
        _ principal: Principal, _ measurements: [BodyMeasurement], into report: inout ImportReport
    ) async throws {
        guard !measurements.isEmpty else { return }
        guard try await body.isTracked(principal) else {
            report.notes.append(
                "\(measurements.count == 1 ? "1 body measurement was" : "\(measurements.count) body measurements were") "
                    + "not imported: body weight and measurement tracking needs the Pro tier")
            return
        }
        struct Day: Hashable {
            var metric: BodyMetric
            var date: String
        }
        var stored: [Day: Decimal] = [:]
        for series in try await body.series(principal, metrics: [], from: "", to: "") {
            for measurement in series.measurements {
                stored[Day(metric: series.metric, date: measurement.measuredOn)] = measurement.value
            }
        }
        for measurement in measurements {
            let day = Day(metric: measurement.metric, date: measurement.measuredOn)
            let unit = BodyUnit.shown(measurement.metric, for: .kg)
            let what = "\(measurement.metric.rawValue) on \(measurement.measuredOn)"
            if let value = stored[day] {
                if value == measurement.value {
                    report.measurementsUnchanged += 1
                } else {
                    report.notes.append(
                        "\(what) was left as it is: \(value) \(unit.symbol) is stored, the file has \(measurement.value) \(unit.symbol)"
                    )
                }
                continue
            }
            do {
                let draft = MeasurementDraft(
                    metric: measurement.metric.rawValue, measuredOn: measurement.measuredOn,
                    value: NSDecimalNumber(decimal: measurement.value).doubleValue, unit: unit, note: measurement.note)
                _ = try await body.create(principal, id: measurement.id.description, draft)
                stored[day] = measurement.value
                report.measurementsAdded += 1
            } catch let error as SpotterError where error.isRefusal {
                report.notes.append("\(what) was not imported: \(error.reason)")
            }
        }
    }

    static func read(_ data: Data, format: ImportFormat, unit: WeightUnit, timeZone: TimeZone)
        throws(SpotterError) -> ImportedFile
    {
        let reader = CSVWorkoutReader(timeZone: timeZone, unit: unit)
        switch format {
        case .strongCSV: return try reader.strong(try text(data))
        case .hevyCSV: return try reader.hevy(try text(data))
        case .spotterJSON: return try SpotterJSONReader.read(data)
        }
    }

    /// Reads `data` as an import of `format` would, storing nothing: the workouts and sets it
    /// holds. What `spotter-fuzz` runs on untrusted files.
    public static func inspect(_ data: Data, format: ImportFormat) throws(SpotterError) -> (workouts: Int, sets: Int) {
        let file = try read(data, format: format, unit: .kg, timeZone: .gmt)
        let sets = file.workouts.reduce(0) { $0 + $1.entries.reduce(0) { $0 + $1.sets.count } }
        return (file.workouts.count, sets)
    }

    private static func text(_ data: Data) throws(SpotterError) -> String {
        guard let text = String(data: data, encoding: .utf8) else {
            throw .invalid("data", "is not UTF-8 text (export the CSV again, or save it as UTF-8)")
        }
        return text
    }
}

extension ImportedWorkout {
    /// The workout as a client would send it, for the API's own validation.
    func draft(exerciseIDs: [ExerciseID]) -> WorkoutDraft {
        // A name is one line: another app's tab or line break in one becomes a space, not a refusal.
        let name = String(
            String.UnicodeScalarView(
                name.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : $0 }))
        return WorkoutDraft(
            name: name, startedAt: startedAt, durationSeconds: durationSeconds, notes: notes, templateID: "",
            exercises: zip(entries, exerciseIDs).map { entry, id in
                WorkoutExerciseDraft(
                    exerciseID: id.description, notes: entry.notes,
                    sets: entry.sets.map { set in
                        // The weight is checked by the caller, exactly.
                        SetDraft(
                            reps: set.reps, weight: nil, rpe: set.rpe?.doubleValue, restSeconds: set.restSeconds,
                            note: set.note, type: set.type, durationSeconds: set.durationSeconds,
                            distanceMeters: set.distanceMeters)
                    },
                    section: entry.section, circuit: entry.circuit)
            })
    }
}

extension ExerciseDraft {
    init(_ exercise: Exercise) {
        self.init(
            name: exercise.name, category: exercise.category, muscleGroup: exercise.muscleGroup,
            equipment: exercise.equipment, instructions: exercise.instructions)
    }
}

extension ProgramDraft {
    /// A stored program's content as a draft, checked again before it is stored (only a file edited
    /// by hand can break a rule).
    init(_ content: ProgramContent) {
        self.init(
            name: content.name, notes: content.notes, weeks: content.weeks,
            days: content.days.map { Day(week: $0.week, weekday: $0.weekday, templateID: $0.templateID.description) })
    }
}

extension TemplateDraft {
    init(_ template: ExportedTemplate) {
        self.init(
            name: template.name, notes: template.notes,
            items: template.items.map { item in
                TemplateItemDraft(
                    exerciseID: item.exerciseID.description, targetSets: item.targetSets, repsMin: item.repsMin,
                    repsMax: item.repsMax, targetRPE: item.targetRPE?.doubleValue, restSeconds: item.restSeconds,
                    notes: item.notes, targetDurationSeconds: item.targetDurationSeconds,
                    targetDistanceMeters: item.targetDistanceMeters, section: item.section, circuit: item.circuit,
                    targetWeight: item.targetLoad?.weight.map(WeightDraft.init(sending:)),
                    targetPercentOfMax: item.targetLoad?.percentOfMax?.doubleValue)
            },
            circuits: template.circuits ?? [])
    }
}

extension SpotterError {
    /// A refusal of the input (as opposed to the database being away).
    var isRefusal: Bool {
        switch self {
        case .invalidArgument, .alreadyExists, .failedPrecondition, .permissionDenied, .tierRequired, .scopeNotGranted:
            true
        default: false
        }
    }
}

extension Error {
    /// The reason in words, as an import report lists it.
    var reason: String {
        guard let error = self as? SpotterError else { return String(describing: self) }
        switch error {
        case .invalidArgument(let violations): return violations.listed
        case .alreadyExists(let field, let reason): return "\(field) \(reason)"
        case .tooManyRequests(let message, _): return message
        case .notFound(let message), .failedPrecondition(let message), .permissionDenied(let message),
            .tierRequired(let message, _), .scopeNotGranted(let message, _), .unauthenticated(let message, _),
            .unavailable(let message), .syncReset(let message):
            return message
        }
    }
}
