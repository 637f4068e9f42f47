/// A run's footsteps read by the CityJogger spec: cadence, pauses, swerves and weaving, minute by
/// minute. Pure: the same footsteps always give the same analysis.
public struct RunAnalysis: Sendable, Equatable, Codable {
    public var footsteps: Int
    /// From the first footstep to the last.
    public var durationSeconds: Double
    /// `durationSeconds` less the pauses.
    public var movingSeconds: Double
    /// Jogger Cadence, footsteps a minute, over the moving time: a jogger who stops at every crossing
    /// does not step more slowly, and the pauses are reported on their own. 0 when every gap is a
    /// pause.
    public var cadence: Double
    /// Metres along the positions, or `nil` when the positions do not cover the run (see
    /// `RunRules.maximumPositionGapMilliseconds`).
    public var distanceMeters: Double?
    /// Where the directions that swerves are measured on came from.
    public var directionSource: RunDirectionSource
    /// Every minute from the first footstep's, the last one usually partial.
    public var minutes: [RunMinute]
    public var pauses: [RunPause]
    public var swerves: [RunSwerve]

    public init(
        footsteps: Int, durationSeconds: Double, movingSeconds: Double, cadence: Double, distanceMeters: Double?,
        directionSource: RunDirectionSource, minutes: [RunMinute], pauses: [RunPause], swerves: [RunSwerve]
    ) {
        self.footsteps = footsteps
        self.durationSeconds = durationSeconds
        self.movingSeconds = movingSeconds
        self.cadence = cadence
        self.distanceMeters = distanceMeters
        self.directionSource = directionSource
        self.minutes = minutes
        self.pauses = pauses
        self.swerves = swerves
    }

    /// How many minutes were weaving.
    public var weavingMinutes: Int { minutes.count { $0.weaving } }

    /// Validates the footsteps (`invalidArgument` naming each offending one, see
    /// `RunAnalysis+Validation.swift`), then analyses them.
    public static func analyze(_ samples: [FootstepSample], field: String = "samples") throws(SpotterError)
        -> RunAnalysis
    {
        try validate(samples, field: field)
        return measure(samples)
    }

    /// The analysis of footsteps already validated: at least two, in strictly increasing time.
    static func measure(_ samples: [FootstepSample]) -> RunAnalysis {
        let first = samples[0].offsetMilliseconds
        let span = samples[samples.count - 1].offsetMilliseconds - first
        var pauses: [RunPause] = []
        for (before, after) in zip(samples, samples.dropFirst())
        where after.offsetMilliseconds - before.offsetMilliseconds >= RunRules.pauseMilliseconds {
            pauses.append(
                RunPause(startMilliseconds: before.offsetMilliseconds, endMilliseconds: after.offsetMilliseconds))
        }
        let paused = pauses.reduce(Int64(0)) { $0 + $1.endMilliseconds - $1.startMilliseconds }
        let moving = span - paused
        // Cadence counts the steps between footsteps that are not pauses, over the time they took:
        // N footsteps a steady 60/170 s apart are 170 a minute, where N / time would say a little more.
        let steps = samples.count - 1 - pauses.count
        let (directionSource, swerves) = findSwerves(samples)
        return RunAnalysis(
            footsteps: samples.count, durationSeconds: Double(span) / 1_000, movingSeconds: Double(moving) / 1_000,
            cadence: moving > 0 ? Double(steps) * 60_000 / Double(moving) : 0, distanceMeters: distance(samples),
            directionSource: directionSource,
            minutes: minutes(samples, pauses: pauses, swerves: swerves), pauses: pauses, swerves: swerves)
    }

    /// The run minute by minute from the first footstep. The last minute is as long as the run
    /// lasted into it (its `seconds`); its footsteps are not scaled up, so its count is not a
    /// cadence, and it is weaving by what happened in it. A last footstep exactly on a minute's end
    /// counts in that minute rather than opening an empty one.
    static func minutes(_ samples: [FootstepSample], pauses: [RunPause], swerves: [RunSwerve]) -> [RunMinute] {
        let first = samples[0].offsetMilliseconds
        let span = samples[samples.count - 1].offsetMilliseconds - first
        let length = RunRules.minuteMilliseconds
        let count = Int(max(1, (span + length - 1) / length))
        func index(_ offset: Int64) -> Int { min(Int((offset - first) / length), count - 1) }

        var minutes = (0..<count).map { index in
            let end = index == count - 1 ? span : Int64(index + 1) * length
            return RunMinute(
                index: index, seconds: Double(end - Int64(index) * length) / 1_000, footsteps: 0, swerves: 0,
                pauses: 0, weaving: false)
        }
        for sample in samples { minutes[index(sample.offsetMilliseconds)].footsteps += 1 }
        // A pause belongs to the minute it began in.
        for pause in pauses { minutes[index(pause.startMilliseconds)].pauses += 1 }
        for swerve in swerves { minutes[index(swerve.offsetMilliseconds)].swerves += 1 }
        for index in minutes.indices {
            minutes[index].weaving = RunRules.isWeaving(swerves: minutes[index].swerves, pauses: minutes[index].pauses)
        }
        return minutes
    }
}

/// A Run Pause: no footstep for `RunRules.pauseMilliseconds` or more.
public struct RunPause: Sendable, Equatable, Codable {
    /// The footstep before the pause.
    public var startMilliseconds: Int64
    /// The footstep after it.
    public var endMilliseconds: Int64

    public init(startMilliseconds: Int64, endMilliseconds: Int64) {
        self.startMilliseconds = startMilliseconds
        self.endMilliseconds = endMilliseconds
    }

    public var seconds: Double { Double(endMilliseconds - startMilliseconds) / 1_000 }
}

/// A Swerve: a direction change of `RunRules.minimumTurnDegrees` up to `RunRules.uTurnDegrees`.
public struct RunSwerve: Sendable, Equatable, Codable {
    /// The footstep where the turn was sharpest.
    public var offsetMilliseconds: Int64
    /// Positive is clockwise (to the right).
    public var turnDegrees: Double

    public init(offsetMilliseconds: Int64, turnDegrees: Double) {
        self.offsetMilliseconds = offsetMilliseconds
        self.turnDegrees = turnDegrees
    }
}

/// One minute of a run.
public struct RunMinute: Sendable, Equatable, Codable {
    /// 0 for the minute that starts at the first footstep.
    public var index: Int
    /// 60, except for the last minute: as long as the run lasted into it.
    public var seconds: Double
    /// Footsteps in the minute: its cadence, when it is a whole minute.
    public var footsteps: Int
    public var swerves: Int
    /// Pauses that began in the minute.
    public var pauses: Int
    /// Weaving, by `RunRules.isWeaving`.
    public var weaving: Bool

    public init(index: Int, seconds: Double, footsteps: Int, swerves: Int, pauses: Int, weaving: Bool) {
        self.index = index
        self.seconds = seconds
        self.footsteps = footsteps
        self.swerves = swerves
        self.pauses = pauses
        self.weaving = weaving
    }
}

/// Where a run's directions came from.
public enum RunDirectionSource: String, Sendable, Equatable, Codable {
    /// The footsteps' headings (`RunRules.compassShare` of them or more have one).
    case compass
    /// Bearings between positions `RunRules.bearingMeters` apart.
    case positions
    /// Neither: no swerves can be seen, so no minute is weaving (weaving needs swerves).
    case none
}
