import Foundation

/// The CSV export: one row per set, RFC 4180 (CRLF, quotes only where needed), UTF-8. The columns
/// are documented in README "Export and import".
public struct ExportCSV: Sendable {
    public static let columns = [
        "date", "started_at", "workout_id", "workout_name", "duration_seconds", "workout_notes",
        "exercise_index", "exercise_id", "exercise_name", "exercise_notes", "set_index", "set_type", "reps",
        "weight_kg", "weight_lb", "rpe", "rest_seconds", "set_note", "set_duration_seconds", "set_distance_m",
        "section", "circuit",
    ]
    public static let header = CSV.record(columns)

    /// The zone of the `date` column (the lifter's).
    public var timeZone: TimeZone

    public init(timeZone: TimeZone) {
        self.timeZone = timeZone
    }

    /// Every set of `workout`, one record each.
    public func rows(_ workout: ExportedWorkout) -> String {
        let date = Self.wallClock(workout.startedAt, timeZone)
        let started = TenantExport.instant(workout.startedAt)
        var text = ""
        for (exerciseIndex, exercise) in workout.exercises.enumerated() {
            for (setIndex, set) in exercise.sets.enumerated() {
                let mass = set.weightKg.map { Mass(kilograms: $0) }
                text += CSV.record([
                    date, started, workout.id.description, workout.name, String(workout.durationSeconds), workout.notes,
                    String(exerciseIndex + 1), exercise.exerciseID.description, exercise.exerciseName, exercise.notes,
                    // A timed or distance set without reps (a plank, a run) has none, not 0.
                    String(setIndex + 1), set.type.rawValue, set.reps.map(String.init) ?? "",
                    mass.map { "\($0.value(in: .kg))" } ?? "", mass.map { "\($0.value(in: .lb))" } ?? "",
                    set.rpe.map { "\($0)" } ?? "", set.restSeconds.map(String.init) ?? "", set.note,
                    set.durationSeconds.map(String.init) ?? "", set.distanceMeters.map(String.init) ?? "",
                    (exercise.section ?? .main).rawValue, String(exercise.circuit ?? 0),
                ])
            }
        }
        return text
    }

    /// The templates' CSV: one row per item, the template repeated on each.
    public static let templateColumns = [
        "template_id", "template_name", "template_notes", "archived", "version", "item_index", "exercise_id",
        "exercise_name", "target_sets", "reps_min", "reps_max", "rpe", "rest_seconds", "target_duration_seconds",
        "target_distance_m", "load_kg", "load_lb", "load_percent_of_max", "item_notes", "section", "circuit",
    ]
    public static let templateHeader = CSV.record(templateColumns)

    /// Every item of `template`, one record each (a template without items has none).
    public static func templateRows(_ template: ExportedTemplate) -> String {
        template.items.enumerated().map { index, item in
            CSV.record([
                template.id.description, template.name, template.notes, template.archivedAt == nil ? "no" : "yes",
                String(template.version), String(index + 1), item.exerciseID.description,
                template.exerciseNames?[item.exerciseID.description] ?? "", String(item.targetSets),
                // A timed or distance item without reps has none, not 0.
                item.repsMax == 0 ? "" : String(item.repsMin), item.repsMax == 0 ? "" : String(item.repsMax),
                item.targetRPE.map { "\($0)" } ?? "",
                item.restSeconds.map(String.init) ?? "", item.targetDurationSeconds.map(String.init) ?? "",
                item.targetDistanceMeters.map(String.init) ?? "",
                item.targetLoad?.weight.map { "\($0.value(in: .kg))" } ?? "",
                item.targetLoad?.weight.map { "\($0.value(in: .lb))" } ?? "",
                item.targetLoad?.percentOfMax.map { "\($0)" } ?? "", item.notes, item.section.rawValue,
                String(item.circuit),
            ])
        }.joined()
    }

    /// The body measurements' CSV: one row per measurement, as stored (kilograms, percent,
    /// centimetres) and in the lifter's own units (pounds and inches for one who logs in pounds).
    public static let measurementColumns = [
        "measured_on", "metric", "value", "unit", "value_shown", "unit_shown", "note", "measurement_id",
    ]
    public static let measurementHeader = CSV.record(measurementColumns)

    /// `measurement` as a record, shown in the units of a lifter who logs in `unit`.
    public static func measurementRow(_ measurement: BodyMeasurement, unit: WeightUnit) -> String {
        let stored: BodyUnit =
            switch measurement.metric.quantity {
            case .mass: .kg
            case .percent: .percent
            case .length: .cm
            }
        let shown = BodyUnit.shown(measurement.metric, for: unit)
        return CSV.record([
            measurement.measuredOn, measurement.metric.rawValue, "\(measurement.value)", stored.rawValue,
            "\(measurement.value(in: shown))", shown.rawValue, measurement.note, measurement.id.description,
        ])
    }

    /// `2026-03-05 18:30:00` in `timeZone`: what spreadsheets read as a date and time.
    static func wallClock(_ date: Date, _ timeZone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func two(_ value: Int?) -> String {
            let value = value ?? 0
            return value < 10 ? "0\(value)" : "\(value)"
        }
        return "\(c.year ?? 1970)-\(two(c.month))-\(two(c.day)) \(two(c.hour)):\(two(c.minute)):\(two(c.second))"
    }
}
