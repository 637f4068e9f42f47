import Foundation

/// The achievement rules: pure functions of the lifter's live workouts (their starts already in the
/// lifter's time zone, folded in start order: `ActivityTally`), birthday and the challenges.
/// Whatever order the workouts were logged, edited, back-dated or deleted in, the same history
/// gives the same awards, each earned by the first workout (by start) that met its rule; an award
/// whose rule no longer holds is gone.
public enum AchievementRules {
    public static let milestones = [1, 5, 10, 25, 50, 100, 250, 500]
    public static let streakWeeks = [3, 5, 10, 26, 52]
    public static let weeklyFrequencies = [3, 4, 5, 7]
    /// Night Owl: started from 21:00 up to 04:00 local time.
    public static let nightOwl = (from: 21 * 60, until: 4 * 60)
    /// Early Bird: started from 04:00 up to 07:00 (earlier is the Night Owl's).
    public static let earlyBird = (from: 4 * 60, until: 7 * 60)

    /// Every achievement, earned or locked: milestones, streaks, weekly frequency, the trophies,
    /// then the challenges (earned ones, and those not yet over).
    public static func evaluate(_ facts: ActivityFacts) -> [Achievement] {
        let tally = facts.tally
        let fold = tally.folded
        var list: [Achievement] = []

        for (index, n) in milestones.enumerated() {
            let earned = index < fold.milestones.count ? award("milestone:\(n)", fold.milestones[index]) : nil
            list.append(
                entry(
                    "milestone:\(n)", progress: min(fold.count, n),
                    text: "\(min(fold.count, n)) of \(n) workouts", earned: earned))
        }

        let current = currentStreak(fold, today: facts.today)
        for (n, by) in zip(streakWeeks, fold.streaks) {
            list.append(
                entry(
                    "streak:\(n)", progress: min(current, n),
                    text: "\(DisplayFormat.count(current, "week")) in a row now",
                    earned: by.map { award("streak:\(n)", $0) }))
        }

        let thisWeek = monday(facts.today)
        let thisWeekCount = fold.weeks.reduce(0) { $0 + ($1.monday == thisWeek ? $1.workouts : 0) }
        for (n, by) in zip(weeklyFrequencies, fold.frequencies) {
            list.append(
                entry(
                    "frequency:\(n)", progress: min(thisWeekCount, n),
                    text: "\(thisWeekCount) of \(n) workouts this week",
                    earned: by.map { award("frequency:\(n)", $0) }))
        }

        list.append(trophy("night_owl", fold.nightOwl.map(ActivityRecord.init)))
        list.append(trophy("early_bird", fold.earlyBird.map(ActivityRecord.init)))
        list.append(birthdayTrophy(fold, birthday: tally.birthday))
        list.append(trophy("new_pr", tally.firstRecord))
        list.append(anniversary(fold, today: facts.today))

        for (challenge, progress) in zip(tally.challenges, fold.challenges) {
            if let entry = evaluate(challenge, progress, today: facts.today) { list.append(entry) }
        }
        return list
    }

    /// What an achievement is, by its key: its group, title, what earns it and its target. `nil`
    /// for a key no rule makes (and for a challenge's, which `challenge` describes).
    public static func describe(_ key: String) -> (
        group: AchievementGroup, title: String, criterion: String, target: Int
    )? {
        let parts = key.split(separator: ":", maxSplits: 1).map(String.init)
        guard parts.count == 2 else { return nil }
        let n = Int(parts[1]) ?? 0
        switch parts[0] {
        case "milestone" where milestones.contains(n):
            return (
                .milestone, n == 1 ? "1 Workout" : "\(n) Workouts",
                n == 1 ? "Log your first workout" : "Log \(n) workouts", n
            )
        case "streak" where streakWeeks.contains(n):
            return (
                .streak, "\(n) Weeks in a Row",
                "Work out at least once a week (Monday to Sunday) for \(n) weeks in a row", n
            )
        case "frequency" where weeklyFrequencies.contains(n):
            return (.frequency, "\(n)x in a Week", "Log \(n) workouts in one week (Monday to Sunday)", n)
        case "trophy":
            switch parts[1] {
            case "night_owl": return (.trophy, "Night Owl", "Start a workout between 21:00 and 04:00", 1)
            case "early_bird": return (.trophy, "Early Bird", "Start a workout between 04:00 and 07:00", 1)
            case "birthday": return (.trophy, "Birthday", "Work out on your birthday", 1)
            case "new_pr":
                return (.trophy, "New PR", "Beat your heaviest set or best estimated one-rep max of an exercise", 1)
            case "anniversary":
                return (.trophy, "Anniversary", "Work out on or after the first anniversary of your first workout", 1)
            default: return nil
            }
        default: return nil
        }
    }

    /// The entry of an earned achievement alone (what the change feed carries), described by its key
    /// or by its challenge.
    public static func earnedEntry(_ stored: StoredAward, challenge: Challenge?) -> Achievement? {
        let key = stored.award.key
        if let challenge, challenge.key == key {
            return Achievement(
                key: key, group: .challenge, title: challenge.name, criterion: challenge.criterion,
                progress: challenge.target, target: challenge.target, progressText: "Earned", earned: stored.award,
                awardedAt: stored.awardedAt, challenge: challenge)
        }
        guard let about = describe(key) else { return nil }
        return Achievement(
            key: key, group: about.group, title: about.title, criterion: about.criterion, progress: about.target,
            target: about.target, progressText: "Earned", earned: stored.award, awardedAt: stored.awardedAt)
    }

    /// The earned ones only.
    public static func awards(_ facts: ActivityFacts) -> [Award] {
        evaluate(facts).compactMap(\.earned)
    }

    // MARK: Weeks

    /// The Monday (days since 1970-01-01, a Thursday) of the ISO week holding `day`.
    public static func monday(_ day: Int) -> Int {
        day - ((day % 7 + 7 + 3) % 7)
    }

    /// The run of weeks ending this week, or last week while this week has none yet.
    static func currentStreak(_ fold: ActivityTally.Fold, today: Int) -> Int {
        let thisWeek = monday(today)
        guard let last = fold.weeks.last?.monday, last == thisWeek || last == thisWeek - 7 else { return 0 }
        var run = 1
        for (later, earlier) in zip(fold.weeks.reversed(), fold.weeks.reversed().dropFirst()) {
            guard later.monday - earlier.monday == 7 else { break }
            run += 1
        }
        return run
    }

    // MARK: Trophies

    private static func award(_ key: String, _ workout: ActivityWorkout) -> Award {
        award(key, ActivityRecord(workout))
    }

    private static func award(_ key: String, _ by: ActivityRecord) -> Award {
        Award(key: key, earnedAt: by.startedAt, workoutID: by.id)
    }

    /// A rule's entry: earned ones show their target reached.
    private static func entry(_ key: String, progress: Int, text: String, earned: Award?) -> Achievement {
        let about = describe(key)!
        return Achievement(
            key: key, group: about.group, title: about.title, criterion: about.criterion,
            progress: earned == nil ? progress : about.target, target: about.target,
            progressText: earned == nil ? text : "Earned", earned: earned)
    }

    private static func trophy(_ name: String, _ by: ActivityRecord?) -> Achievement {
        let key = "trophy:\(name)"
        return entry(key, progress: 0, text: "Not yet", earned: by.map { award(key, $0) })
    }

    /// A workout on the birthday's month and day; a 29 February birthday counts on 28 February in
    /// other years.
    private static func birthdayTrophy(_ fold: ActivityTally.Fold, birthday: String?) -> Achievement {
        guard let birthday, monthDay(birthday) != nil else {
            var entry = trophy("birthday", nil)
            entry.progressText = "Add your birthday to your profile"
            return entry
        }
        return trophy("birthday", fold.onBirthday.map(ActivityRecord.init))
    }

    /// The first workout on or after the same date a year after the first workout (28 February for
    /// a first workout on 29 February).
    private static func anniversary(_ fold: ActivityTally.Fold, today: Int) -> Achievement {
        guard let first = fold.first, let yearLater = fold.yearLater else {
            var entry = trophy("anniversary", nil)
            entry.progressText = "Starts with your first workout"
            return entry
        }
        var entry = trophy("anniversary", fold.anniversary.map(ActivityRecord.init))
        if entry.earned == nil {
            let total = yearLater - first.localDay
            entry.target = total
            entry.progress = max(0, min(today - first.localDay, total))
            entry.progressText = "\(entry.progress) of \(total) days since your first workout"
        }
        return entry
    }

    // MARK: Challenges

    private static func evaluate(
        _ challenge: Challenge, _ progress: ActivityTally.Fold.ChallengeProgress, today: Int
    ) -> Achievement? {
        guard let start = progress.start, let end = progress.end else { return nil }
        let earnedBy = progress.earnedBy
        guard earnedBy != nil || end >= today else { return nil }
        let reached = progress.seconds ? progress.reached / 60 : progress.reached
        let shown = min(reached, challenge.target)
        let unit = progress.seconds ? "minutes" : "workouts"
        let text: String
        if earnedBy != nil {
            text = "Earned"
        } else if today < start {
            text = "Starts \(challenge.startsOn)"
        } else {
            text = "\(shown) of \(challenge.target) \(unit) by \(challenge.endsOn)"
        }
        return Achievement(
            key: challenge.key, group: .challenge, title: challenge.name, criterion: challenge.criterion,
            progress: earnedBy == nil ? shown : challenge.target, target: challenge.target, progressText: text,
            earned: earnedBy.map { award(challenge.key, $0) }, challenge: challenge)
    }

    /// `MM-DD` → (month, day).
    static func monthDay(_ text: String) -> (Int, Int)? {
        let parts = text.split(separator: "-")
        guard parts.count == 2, let month = Int(parts[0]), let day = Int(parts[1]), (1...12).contains(month),
            (1...CivilDate.daysIn(month: month, year: 2000)).contains(day)
        else { return nil }
        return (month, day)
    }
}

/// A proleptic Gregorian date and its day number (days since 1970-01-01), converted with integer
/// arithmetic (H. Hinnant's `days_from_civil`), so rules over thousands of workouts need no
/// calendar calls.
public struct CivilDate: Sendable, Equatable {
    public var year: Int
    public var month: Int
    public var day: Int

    public init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    public init(day number: Int) {
        let z = number + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        day = doy - (153 * mp + 2) / 5 + 1
        month = mp < 10 ? mp + 3 : mp - 9
        year = yoe + era * 400 + (month <= 2 ? 1 : 0)
    }

    public var dayNumber: Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// `YYYY-MM-DD` → day number; `nil` for anything else or a date that does not exist.
    public static func dayNumber(_ text: String) -> Int? {
        guard let (year, month, day) = fields(text), (1...12).contains(month),
            (1...daysIn(month: month, year: year)).contains(day)
        else { return nil }
        return CivilDate(year: year, month: month, day: day).dayNumber
    }

    /// The numbers of a text shaped `YYYY-MM-DD`, whether or not the calendar has that day.
    private static func fields(_ text: String) -> (year: Int, month: Int, day: Int)? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2])
        else { return nil }
        return (year, month, day)
    }

    /// Why `text`, which `dayNumber` refused, is not a date: its shape, or a month or day the
    /// calendar does not have ("February 2026 has 28 days").
    public static func notADate(_ text: String) -> String {
        guard let (year, month, _) = fields(text) else { return "must be a date as YYYY-MM-DD, not '\(text)'" }
        guard (1...12).contains(month) else {
            return "must be a day of the calendar; there is no month \(text.split(separator: "-")[1])"
        }
        let name = DisplayFormat.monthAbbreviations[month - 1]
        return "must be a day of the calendar; \(name) \(year) has \(daysIn(month: month, year: year)) days"
    }

    /// Why `text` cannot be a date that has been (a birthday, a measurement's day): not a real date
    /// as YYYY-MM-DD, before 1900, or after today in `timeZone` (without one, after tomorrow in
    /// UTC: today somewhere); `nil` when it can.
    /// The zone is named as the person set it (`UTC` stays `UTC`, which Foundation calls `GMT`); an
    /// unknown name is judged as no zone.
    public static func pastDateProblem(_ text: String, now: Date, timeZone name: String? = nil) -> String? {
        guard let day = dayNumber(text) else { return notADate(text) }
        if day < CivilDate(year: 1900, month: 1, day: 1).dayNumber { return "must be 1900-01-01 or later" }
        guard let name, let timeZone = TimeZone(identifier: name) else {
            if day > Int((now.timeIntervalSince1970 / 86_400).rounded(.down)) + 1 { return "must not be in the future" }
            return nil
        }
        let local = now.timeIntervalSince1970 + Double(timeZone.secondsFromGMT(for: now))
        let today = CivilDate(day: Int((local / 86_400).rounded(.down)))
        if day > today.dayNumber {
            return "must not be in the future (it is \(today.text) in \(name), your time zone)"
        }
        return nil
    }

    public static func isLeap(_ year: Int) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

    public static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}

extension CivilDate {
    /// `YYYY-MM-DD`.
    public var text: String {
        func pad(_ value: Int, _ width: Int) -> String {
            String(repeating: "0", count: max(0, width - String(value).count)) + String(value)
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))"
    }
}

/// What makes a challenge valid.
public enum ChallengeRules {
    /// The longest range a challenge may have, both ends counted: a leap year.
    public static let maximumDays = 366

    /// A new challenge from an administrator's input, or `invalidArgument` naming each field wrong.
    public static func validated(
        name: String, description: String, startsOn: String, endsOn: String, rule: String, target: Int?,
        createdAt: Date, createdBy: String
    ) throws(SpotterError) -> Challenge {
        var validator = Validator()
        let name = name.trimmingWhitespacesAndNewlines()
        let description = description.trimmingWhitespacesAndNewlines()
        validator.check((1...80).contains(name.storedLength), "name", "must be 1 to 80 characters")
        validator.check(description.storedLength <= 500, "description", "must be at most 500 characters")
        let start = CivilDate.dayNumber(startsOn)
        let end = CivilDate.dayNumber(endsOn)
        if start == nil { validator.add("starts_on", CivilDate.notADate(startsOn)) }
        if end == nil { validator.add("ends_on", CivilDate.notADate(endsOn)) }
        if let start, let end {
            validator.check(end >= start, "ends_on", "must be on or after starts_on (\(startsOn))")
            validator.check(
                end - start + 1 <= maximumDays, "ends_on",
                "must make a challenge of at most \(maximumDays) days, starts_on and ends_on included "
                    + "(this is \(end - start + 1))")
        }
        let parsed = Challenge.Rule(rawValue: rule)
        validator.check(
            parsed != nil, "rule", "must be one of \(Challenge.Rule.allCases.map(\.rawValue).joined(separator: ", "))")
        switch parsed {
        case .anyWorkout:
            validator.check(target == nil || target == 1, "target", "must be 1 (or left out) for any_workout")
        case .workouts, .activeMinutes:
            if let target {
                validator.check((1...100_000).contains(target), "target", "must be from 1 to 100000")
            } else {
                validator.add("target", "is required for \(rule)")
            }
        case nil: break
        }
        try validator.validate()
        return Challenge(
            id: UUID(), name: name, description: description, startsOn: startsOn, endsOn: endsOn, rule: parsed!,
            target: target ?? 1, createdAt: createdAt, createdBy: createdBy)
    }
}
