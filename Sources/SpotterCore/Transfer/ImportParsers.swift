import Foundation

/// Reads Strong's and Hevy's CSV exports into workouts. Their timestamps carry no zone: they are
/// read in the lifter's time zone. Rows are grouped into workouts by start and name, and into
/// exercises by consecutive rows naming the same exercise, keeping the file's order.
struct CSVWorkoutReader {
    var timeZone: TimeZone
    /// The unit of weights when the file does not say.
    var unit: WeightUnit

    private var calendar: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return calendar
    }

    // MARK: Strong

    /// Strong's "Export Data": `Date, Workout Name, Duration, Exercise Name, Set Order, Weight,
    /// Reps, Distance, Seconds, Notes, Workout Notes, RPE` (comma-separated), or the older
    /// semicolon-separated layout with `Weight Unit`, `Distance Unit` and `Workout Duration`.
    func strong(_ text: String) throws(SpotterError) -> ImportedFile {
        let table = try CSVTable(text, file: "Strong")
        try table.require(["date", "workout name", "exercise name", "set order", "weight", "reps"], file: "Strong")
        var builder = WorkoutBuilder()
        var dates = DateCache(reader: self)
        for (index, row) in table.rows.enumerated() {
            let line = index + 2
            let dateText = table.value(row, "date")
            guard let startedAt = dates[dateText] else {
                throw .invalid(
                    "data", "row \(line): Date \"\(dateText)\" is not a date and time like 2024-03-05 18:30:00")
            }
            let name = table.value(row, "workout name")
            let duration = Self.duration(
                table.has("duration") ? table.value(row, "duration") : table.value(row, "workout duration"))
            let exercise = table.value(row, "exercise name")
            let order = table.value(row, "set order")
            let seconds = try number(table.value(row, "seconds"), "Seconds", line)
            if order.lowercased() == "rest timer" {
                builder.restTimer(seconds.map { Int(min($0, 3600)) }, line: line)
                continue
            }
            let type: SetType
            switch order.uppercased() {
            case "W": type = .warmUp
            case "D": type = .drop
            case "F": type = .failure
            default:
                guard Int(order) != nil else {
                    throw .invalid("data", "row \(line): Set Order \"\(order)\" is not a set number, W, D or F")
                }
                type = .working
            }
            let unit: WeightUnit
            if table.has("weight unit"), !table.value(row, "weight unit").isEmpty {
                unit = try Self.unit(table.value(row, "weight unit"), line)
            } else {
                unit = self.unit
            }
            // Strong writes distances in the app's unit: kilometres unless the older layout's
            // Distance Unit says miles.
            let miles = table.has("distance unit") && table.value(row, "distance unit").lowercased().hasPrefix("mi")
            let distance = try number(table.value(row, "distance"), "Distance", line)
            let set = importedSet(
                reps: table.value(row, "reps"), weight: table.value(row, "weight"), unit: unit,
                rpe: table.value(row, "rpe"), note: table.value(row, "notes"), type: type, line: line,
                seconds: seconds, meters: Self.meters(distance, miles: miles))
            builder.add(
                workout: ImportedWorkout(
                    key: Self.key(startedAt, name), name: name, startedAt: startedAt, durationSeconds: duration,
                    notes: table.value(row, "workout notes"), entries: []),
                exercise: exercise, exerciseNotes: "", set: set, rowText: row, line: line)
        }
        return builder.file
    }

    // MARK: Hevy

    /// Hevy's "Export Workouts": `title, start_time, end_time, description, exercise_title,
    /// superset_id, exercise_notes, set_index, set_type, weight_kg | weight_lbs, reps,
    /// distance_km | distance_miles, duration_seconds, rpe`.
    func hevy(_ text: String) throws(SpotterError) -> ImportedFile {
        let table = try CSVTable(text, file: "Hevy")
        try table.require(["title", "start_time", "end_time", "exercise_title", "set_type", "reps"], file: "Hevy")
        let weightColumn: String
        let unit: WeightUnit
        if table.has("weight_kg") {
            (weightColumn, unit) = ("weight_kg", .kg)
        } else if table.has("weight_lbs") {
            (weightColumn, unit) = ("weight_lbs", .lb)
        } else {
            throw .invalid("data", "is not a Hevy CSV export: the header has neither \"weight_kg\" nor \"weight_lbs\"")
        }
        let distanceColumn = table.has("distance_km") ? "distance_km" : "distance_miles"
        var builder = WorkoutBuilder()
        var dates = DateCache(reader: self)
        // A workout's duration is its first row's.
        var started: Set<String> = []
        for (index, row) in table.rows.enumerated() {
            let line = index + 2
            let startText = table.value(row, "start_time")
            guard let startedAt = dates[startText] else {
                throw .invalid(
                    "data", "row \(line): start_time \"\(startText)\" is not a date and time like \"5 Mar 2024, 18:30\""
                )
            }
            let endedAt = dates[table.value(row, "end_time")]
            let duration = endedAt.map { Int(max(0, min(86_400, $0.timeIntervalSince(startedAt)))) } ?? 0
            let name = table.value(row, "title")
            if started.insert(Self.key(startedAt, name)).inserted, let endedAt, endedAt < startedAt {
                builder.note(
                    "row \(line): end_time \"\(table.value(row, "end_time"))\" is before start_time \"\(startText)\", "
                        + "so \"\(table.value(row, "title"))\" was imported without a duration")
            }
            let typeText = table.value(row, "set_type").lowercased()
            let type: SetType
            switch typeText {
            case "normal", "": type = .working
            case "warmup", "warm_up", "warm-up": type = .warmUp
            case "dropset", "drop": type = .drop
            case "failure": type = .failure
            default:
                throw .invalid(
                    "data", "row \(line): set_type \"\(typeText)\" is not normal, warmup, dropset or failure")
            }
            let seconds = try number(table.value(row, "duration_seconds"), "duration_seconds", line)
            let distance = try number(table.value(row, distanceColumn), distanceColumn, line)
            let meters = Self.meters(distance, miles: distanceColumn != "distance_km")
            let set = importedSet(
                reps: table.value(row, "reps"), weight: table.value(row, weightColumn), unit: unit,
                rpe: table.value(row, "rpe"), note: "", type: type, line: line, seconds: seconds, meters: meters)
            builder.add(
                workout: ImportedWorkout(
                    key: Self.key(startedAt, name), name: name, startedAt: startedAt, durationSeconds: duration,
                    notes: table.value(row, "description"), entries: []),
                exercise: table.value(row, "exercise_title"), exerciseNotes: table.value(row, "exercise_notes"),
                // Hevy numbers a workout's supersets from 0; Spotter's circuits count from 1.
                circuit: Int(table.value(row, "superset_id").trimmingWhitespaces()).flatMap {
                    (0..<100).contains($0) ? $0 + 1 : nil
                } ?? 0,
                set: set, rowText: row, line: line)
        }
        return builder.file
    }

    // MARK: Fields

    /// A distance in kilometres, or in miles, as metres.
    static func meters(_ distance: Double?, miles: Bool) -> Double? {
        distance.map { $0 * (miles ? 1_609.344 : 1_000) }
    }

    /// The same start and name is the same workout, whichever app exported it.
    static func key(_ startedAt: Date, _ name: String) -> String {
        "\(UnixMicros.of(startedAt))|\(name)"
    }

    /// A set, or the reason its row is left out: neither reps nor a time or a distance, or a value
    /// no set can have (reps that are not a whole number or over 1,000, a weight over 2,000 kg, a
    /// time over a day, a distance over 1,000 km: the API's bounds, so one row never costs its
    /// workout); the rest of the file is read on. A timed or distance set (a
    /// plank, a run) keeps its seconds and metres, rounded, with no reps. An RPE outside 1–10 is
    /// left out of its set, with a note.
    private func importedSet(
        reps: String, weight: String, unit: WeightUnit, rpe: String, note: String, type: SetType, line: Int,
        seconds: Double?, meters: Double?
    ) -> Result<ImportedSet, SkipReason> {
        func leftOut(_ reason: String) -> Result<ImportedSet, SkipReason> {
            .failure(SkipReason(line: line, reason: reason))
        }
        var duration: Int?
        if let seconds, seconds > 0 {
            guard seconds.rounded() <= Double(TimedWork.maximumDurationSeconds) else {
                return leftOut("a set of \(Int(seconds)) seconds is longer than a day")
            }
            duration = max(1, Int(seconds.rounded()))
        }
        var distance: Int?
        if let meters, meters > 0 {
            guard meters.rounded() <= Double(TimedWork.maximumDistanceMeters) else {
                return leftOut("a distance of \(Int(meters / 1_000)) km is farther than 1,000 km")
            }
            distance = max(1, Int(meters.rounded()))
        }
        guard case .read(let repsRead) = Self.cell(reps) else {
            return leftOut("reps \"\(reps)\" is not a number of at least 0")
        }
        let repsValue = repsRead ?? 0
        guard repsValue > 0 || duration != nil || distance != nil else {
            return leftOut("a set without reps, a time or a distance")
        }
        guard repsValue == repsValue.rounded() else {
            return leftOut("reps \"\(reps)\" is not a whole number of repetitions")
        }
        guard repsValue <= 1_000 else { return leftOut("\(reps) reps is more than the 1,000 a set can have") }
        guard case .read(let weightRead) = Self.cell(weight) else {
            return leftOut("weight \"\(weight)\" is not a number of at least 0")
        }
        var mass: Mass?
        if let value = weightRead, value > 0 {
            guard let decimal = Decimal(exactly: value), decimal <= 10_000,
                case let rounded = Mass(decimal.rounded(scale: 2), unit), rounded <= Mass.maximum
            else {
                return leftOut(
                    "a weight of \(weight) \(unit.rawValue) is over the 2,000 kg (4,409.24 lb) a set can have")
            }
            mass = rounded
        }
        var rpeValue: Decimal?
        var dropped: String?
        if case .read(let value?) = Self.cell(rpe), value >= 1, value <= 10 {
            // Spotter keeps RPE in half steps.
            rpeValue = Decimal(exactly: (value * 2).rounded() / 2)
        } else if !rpe.isEmpty {
            dropped = "row \(line): RPE \"\(rpe)\" is not between 1 and 10, so the set was kept without it"
        }
        return .success(
            ImportedSet(
                reps: Int(repsValue), weight: mass, rpe: rpeValue, restSeconds: nil, note: note,
                type: type, durationSeconds: duration, distanceMeters: distance, dropped: dropped))
    }

    /// A cell read as a number of at least 0 (`.` or, in semicolon files, `,` as the separator):
    /// `nil` when empty, or unreadable.
    private enum Cell {
        case read(Double?)
        case unreadable
    }

    private static func cell(_ text: String) -> Cell {
        guard !text.isEmpty else { return .read(nil) }
        let normalized = text.contains(".") ? text : text.replacingOccurrences(of: ",", with: ".")
        guard let value = Double(normalized), value.isFinite, value >= 0 else { return .unreadable }
        return .read(value)
    }

    /// A decimal number (`.` or, in semicolon files, `,` as the separator); `nil` when empty.
    private func number(_ text: String, _ column: String, _ line: Int) throws(SpotterError) -> Double? {
        guard case .read(let value) = Self.cell(text) else {
            throw .invalid("data", "row \(line): \(column) \"\(text)\" is not a number of at least 0")
        }
        return value
    }

    private static func unit(_ text: String, _ line: Int) throws(SpotterError) -> WeightUnit {
        switch text.lowercased() {
        case "kg", "kgs": return .kg
        case "lb", "lbs": return .lb
        default: throw .invalid("data", "row \(line): Weight Unit \"\(text)\" is not kg or lbs")
        }
    }

    /// `1h 5m`, `45m`, `30s`, `1:05:00` or a number of seconds; 0 when unreadable.
    /// Every number is capped at a day before any arithmetic, so no text overflows.
    static func duration(_ text: String) -> Int {
        let day = 86_400
        func capped(_ digits: Substring) -> Int? {
            if let value = Int(digits) { return min(max(value, 0), day) }
            // Digits past Int's range are more than a day too.
            return !digits.isEmpty && digits.allSatisfy { $0.isASCII && $0.isNumber } ? day : nil
        }
        let text = text.trimmingWhitespaces().lowercased()
        if let seconds = capped(text[...]) { return seconds }
        let parts = text.split(separator: ":")
        let clock = parts.compactMap(capped)
        if clock.count >= 2, clock.count <= 3, clock.count == parts.count {
            let seconds = clock.reduce(0) { min($0 * 60 + $1, day) } * (clock.count == 2 ? 60 : 1)
            return min(seconds, day)
        }
        var total = 0
        var digits = ""
        for character in text {
            if character.isASCII, character.isNumber {
                digits.append(character)
            } else if let value = capped(digits[...]) {
                switch character {
                case "h": total += value * 3600
                case "m": total += value * 60
                case "s": total += value
                default: continue
                }
                total = min(total, day)
                digits = ""
            }
        }
        return total
    }

    private static let months = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ]

    /// A wall-clock time in the lifter's zone: `2024-03-05 18:30[:00]` (optionally `T`-separated,
    /// 12-hour with AM/PM) or Hevy's `5 Mar 2024, 18:30`.
    func localDate(_ text: String) -> Date? {
        // Strong writes a narrow no-break space before AM/PM.
        let cleaned = text.replacingOccurrences(of: "\u{202F}", with: " ").replacingOccurrences(of: ",", with: " ")
            .replacingOccurrences(of: "T", with: " ")
        let words = cleaned.split(separator: " ").map(String.init)
        guard words.count >= 2 else { return nil }
        var components = DateComponents()
        var rest: ArraySlice<String>
        let dateParts = words[0].split(separator: "-").compactMap { Int($0) }
        if dateParts.count == 3, words[0].split(separator: "-").count == 3 {
            (components.year, components.month, components.day) = (dateParts[0], dateParts[1], dateParts[2])
            rest = words[1...]
        } else if words.count >= 4, let day = Int(words[0]),
            let month = Self.months.firstIndex(of: String(words[1].prefix(3)).lowercased()), let year = Int(words[2])
        {
            (components.year, components.month, components.day) = (year, month + 1, day)
            rest = words[3...]
        } else {
            return nil
        }
        guard let clock = rest.first else { return nil }
        let time = clock.split(separator: ":").map { Int($0) }
        guard (2...3).contains(time.count), let hour = time[0], let minute = time[1], time.allSatisfy({ $0 != nil })
        else { return nil }
        var hour24 = hour
        if let marker = rest.dropFirst().first?.uppercased() {
            guard marker == "AM" || marker == "PM", (1...12).contains(hour) else { return nil }
            hour24 = hour % 12 + (marker == "PM" ? 12 : 0)
        }
        let second = time.count == 3 ? time[2]! : 0
        guard (0...23).contains(hour24), (0...59).contains(minute), (0...59).contains(second),
            let year = components.year, (1970...9999).contains(year),
            (1...12).contains(components.month ?? 0), (1...31).contains(components.day ?? 0)
        else { return nil }
        components.hour = hour24
        components.minute = minute
        components.second = second
        guard let date = calendar.date(from: components),
            calendar.component(.day, from: date) == components.day
        else { return nil }
        return date
    }
}

/// Every row of a workout repeats its start: each text is read once.
private struct DateCache {
    let reader: CSVWorkoutReader
    private var dates: [String: Date?] = [:]

    init(reader: CSVWorkoutReader) { self.reader = reader }

    subscript(text: String) -> Date? {
        mutating get {
            if let known = dates[text] { return known }
            let date = reader.localDate(text)
            dates[text] = date
            return date
        }
    }
}

/// Why a row was left out.
struct SkipReason: Error {
    var line: Int
    var reason: String
}

/// Collects rows into workouts and exercises, dropping repeated rows.
private struct WorkoutBuilder {
    private(set) var file = ImportedFile(workouts: [])
    private var indexByKey: [String: Int] = [:]
    private var seenRows: [String: [[String]: Int]] = [:]
    private var lastRestTarget: (workout: Int, entry: Int, set: Int)?

    mutating func add(
        workout: ImportedWorkout, exercise: String, exerciseNotes: String, circuit: Int = 0,
        set result: Result<ImportedSet, SkipReason>, rowText: [String], line: Int
    ) {
        if let first = seenRows[workout.key, default: [:]][rowText] {
            file.notes.append("row \(line) repeats row \(first) and was left out")
            return
        }
        seenRows[workout.key, default: [:]][rowText] = line
        let set: ImportedSet
        switch result {
        case .success(let value):
            set = value
            if let dropped = value.dropped { file.notes.append(dropped) }
        case .failure(let skip):
            file.notes.append("row \(skip.line) was left out: \(skip.reason)")
            // A rest timer after this row belongs to no set that was kept.
            lastRestTarget = nil
            return
        }
        let index: Int
        if let existing = indexByKey[workout.key] {
            index = existing
            if file.workouts[index].notes.isEmpty { file.workouts[index].notes = workout.notes }
        } else {
            index = file.workouts.count
            indexByKey[workout.key] = index
            file.workouts.append(workout)
        }
        // A new entry for another exercise, or the same one in another superset.
        if file.workouts[index].entries.last.map({ $0.name != exercise || $0.circuit != circuit }) ?? true {
            file.workouts[index].entries.append(
                ImportedWorkout.Entry(name: exercise, exerciseID: nil, notes: exerciseNotes, sets: [], circuit: circuit)
            )
        }
        let entry = file.workouts[index].entries.count - 1
        file.workouts[index].entries[entry].sets.append(set)
        lastRestTarget = (index, entry, file.workouts[index].entries[entry].sets.count - 1)
    }

    /// A note for the report about the file as read.
    mutating func note(_ text: String) { file.notes.append(text) }

    /// Strong's "Rest Timer" row: the rest after the set before it.
    mutating func restTimer(_ seconds: Int?, line: Int) {
        guard let target = lastRestTarget, let seconds, seconds > 0 else {
            file.notes.append("row \(line) (a rest timer with no set before it) was left out")
            return
        }
        file.workouts[target.workout].entries[target.entry].sets[target.set].restSeconds = min(seconds, 3600)
    }
}
