import Foundation

/// How long a template takes, estimated from its sets and rests (documented in the README,
/// "Discover"):
///
/// - each set: 10 s to set up plus 4 s per rep, at the middle of the rep range (rounded up), plus
///   its target time, or 1 s per 3 m of a target distance without a time;
/// - a circuit's items count once per round, and the circuit's rest follows every round but the
///   last;
/// - after each set the item's rest (90 s when the template gives none), except after the very
///   last set of the session;
/// - 60 s to change over between exercises;
/// - rounded up to whole minutes.
///
/// A program's estimate is the mean of its training days' (rounded to whole minutes).
public enum SessionEstimate {
    public static let setupSeconds = 10
    public static let secondsPerRep = 4
    public static let defaultRestSeconds = 90
    public static let changeoverSeconds = 60
    /// A brisk run's pace, for a distance target without a time.
    public static let metresPerSecond = 3

    public static func seconds(_ content: TemplateContent) -> Int {
        var total = 0
        let lastItem = content.items.count - 1
        for (index, item) in content.items.enumerated() {
            let reps = (item.repsMin + max(item.repsMin, item.repsMax) + 1) / 2
            let timed = item.targetDurationSeconds ?? (item.targetDistanceMeters ?? 0) / metresPerSecond
            let work = setupSeconds + secondsPerRep * reps + timed
            let rest = item.restSeconds ?? defaultRestSeconds
            let sets = content.plannedSets(item)
            let rests = index == lastItem ? sets - 1 : sets
            total += sets * work + rests * rest
            if index < lastItem { total += changeoverSeconds }
        }
        for circuit in content.circuits { total += (circuit.rounds - 1) * circuit.restSeconds }
        return total
    }

    public static func minutes(_ content: TemplateContent) -> Int {
        max(1, (seconds(content) + 59) / 60)
    }

    /// The mean of the training days' minutes; `days` names templates in `templates`.
    public static func minutes(_ program: ProgramContent, templates: [TemplateID: TemplateContent]) -> Int {
        let sessions = program.days.compactMap { templates[$0.templateID].map(minutes) }
        guard !sessions.isEmpty else { return 1 }
        return max(1, Int((Double(sessions.reduce(0, +)) / Double(sessions.count)).rounded()))
    }
}

extension PublicationFacets {
    /// The facets of `snapshot`; `exercises` holds every exercise its templates use.
    public init(_ snapshot: PublishedSnapshot, exercises: [ExerciseID: Exercise]) {
        let used = snapshot.templates.flatMap { $0.content.items.map(\.exerciseID) }.uniqued()
        let known = used.compactMap { exercises[$0] }
        let groups = Set(known.map(\.muscleGroup))
        let equipment = Set(known.map(\.equipment))
        let minutes: Int
        let weeks: Int
        let perWeek: Int
        if let program = snapshot.program {
            let contents = Dictionary(
                snapshot.templates.map { ($0.id, $0.content) }, uniquingKeysWith: { first, _ in first })
            minutes = SessionEstimate.minutes(program, templates: contents)
            weeks = program.weeks
            perWeek = max(1, Int((Double(program.days.count) / Double(max(1, program.weeks))).rounded()))
        } else {
            minutes = snapshot.templates.first.map { SessionEstimate.minutes($0.content) } ?? 1
            weeks = 0
            perWeek = 0
        }
        self.init(
            muscleGroups: MuscleGroup.allCases.filter(groups.contains),
            equipment: Equipment.allCases.filter(equipment.contains),
            exerciseIDs: used, estimatedMinutes: minutes, weeks: weeks, sessionsPerWeek: perWeek)
    }
}
