extension RunAnalysis {
    /// Throws `invalidArgument` naming every offending footstep, as `samples[17].offset_ms`: the first
    /// `RunRules.maximumViolations` problems, then one line counting the rest, so a bad upload of
    /// 100,000 footsteps gets a readable answer.
    static func validate(_ samples: [FootstepSample], field: String) throws(SpotterError) {
        guard samples.count >= 2 else { throw .invalid(field, "must have at least 2 footsteps, not \(samples.count)") }
        guard samples.count <= RunRules.maximumSamples else {
            throw .invalid(
                field,
                "has \(samples.count) footsteps, more than the \(RunRules.maximumSamples) a run may have "
                    + "(\(field)[\(RunRules.maximumSamples)] onwards are too many)")
        }
        var problems = CappedViolations()
        // Speeds only mean something once every time is right.
        var timesValid = true
        var positioned: [Int] = []
        for (index, sample) in samples.enumerated() {
            let at = "\(field)[\(index)]"
            if let problem = offsetProblem(samples, index, field: field) {
                problems.add("\(at).offset_ms", problem)
                timesValid = false
            }
            switch (sample.latitude, sample.longitude) {
            case (nil, nil): break
            case (.some, nil):
                problems.add("\(at).longitude", "is missing while latitude is given (give both or neither)")
            case (nil, .some):
                problems.add("\(at).latitude", "is missing while longitude is given (give both or neither)")
            case (let latitude?, let longitude?):
                let latitudeValid = (-90...90).contains(latitude)
                let longitudeValid = (-180...180).contains(longitude)
                if !latitudeValid { problems.add("\(at).latitude", "is \(latitude), must be a number from -90 to 90") }
                if !longitudeValid {
                    problems.add("\(at).longitude", "is \(longitude), must be a number from -180 to 180")
                }
                if latitudeValid && longitudeValid { positioned.append(index) }
            }
            if let heading = sample.headingDegrees, !(heading >= 0 && heading < 360) {
                problems.add(
                    "\(at).heading_degrees", "is \(heading), must be a number from 0 up to (not including) 360")
            }
        }
        if timesValid { checkSpeeds(samples, positioned, field: field, into: &problems) }
        try problems.validate(field: field)
    }

    /// Why footstep `index`'s offset is wrong on its own or after the one before it, if it is.
    private static func offsetProblem(_ samples: [FootstepSample], _ index: Int, field: String) -> String? {
        let offset = samples[index].offsetMilliseconds
        let range = 0...RunRules.maximumOffsetMilliseconds
        if offset < 0 { return "is \(seconds(offset)), before the run's start (must be 0 or more)" }
        if offset > range.upperBound {
            return "is \(seconds(offset)), past the longest run (\(hours(range.upperBound)))"
        }
        guard index > 0, range.contains(samples[index - 1].offsetMilliseconds) else { return nil }
        let previous = samples[index - 1].offsetMilliseconds
        let before = "\(field)[\(index - 1)]"
        if offset < previous {
            return "is \(seconds(offset)), before \(before) at \(seconds(previous)) (samples must be in time order)"
        }
        if offset == previous { return "repeats \(before)'s time \(seconds(previous))" }
        if offset - previous < RunRules.minimumStepMilliseconds {
            return "is \(seconds(offset - previous)) after \(before) (footsteps must be at least "
                + "\(seconds(RunRules.minimumStepMilliseconds)) apart, at most "
                + "\(RunRules.minuteMilliseconds / RunRules.minimumStepMilliseconds) a minute)"
        }
        return nil
    }

    /// Flags each position farther from one `RunRules.speedWindowMilliseconds` or more before it (or
    /// from the first) than a jogger could go, beyond the error two fixes may have between them.
    /// A flagged position is where the track jumped: the positions after it are measured from it, so
    /// one jump is one problem, not one for every sample within the window after it.
    private static func checkSpeeds(
        _ samples: [FootstepSample], _ positioned: [Int], field: String, into problems: inout CappedViolations
    ) {
        var anchor = 0
        for next in positioned.indices.dropFirst() {
            let index = positioned[next]
            let offset = samples[index].offsetMilliseconds
            while anchor + 1 < next
                && samples[positioned[anchor + 1]].offsetMilliseconds <= offset - RunRules.speedWindowMilliseconds
            {
                anchor += 1
            }
            let from = positioned[anchor]
            let elapsed = offset - samples[from].offsetMilliseconds
            let meters = samples[from].position!.meters(to: samples[index].position!)
            let speed = (meters - RunRules.positionErrorMeters) / (Double(elapsed) / 1_000)
            if speed > RunRules.maximumSpeed {
                problems.add(
                    "\(field)[\(index)]",
                    "is \(Int(meters.rounded())) m from \(field)[\(from)] \(seconds(elapsed)) earlier: over "
                        + "\(DisplayFormat.oneDecimal(speed)) m/s even allowing "
                        + "\(Int(RunRules.positionErrorMeters)) m of GPS error (at most "
                        + "\(DisplayFormat.oneDecimal(RunRules.maximumSpeed)) m/s)")
                anchor = next
            }
        }
    }

    /// `12.500 s`, `-0.040 s`.
    static func seconds(_ milliseconds: Int64) -> String {
        let magnitude = milliseconds.magnitude
        let thousandths = String(magnitude % 1_000)
        return (milliseconds < 0 ? "-" : "") + "\(magnitude / 1_000)."
            + String(repeating: "0", count: 3 - thousandths.count) + thousandths + " s"
    }

    private static func hours(_ milliseconds: Int64) -> String { "\(milliseconds / 3_600_000) h" }
}

/// A `Validator` that keeps the first `RunRules.maximumViolations` and counts the rest.
private struct CappedViolations {
    var validator = Validator()
    var unlisted = 0

    mutating func add(_ field: String, _ reason: String) {
        if validator.violations.count < RunRules.maximumViolations {
            validator.add(field, reason)
        } else {
            unlisted += 1
        }
    }

    func validate(field: String) throws(SpotterError) {
        var validator = validator
        if unlisted > 0 { validator.add(field, "has \(unlisted) more problems not listed here") }
        try validator.validate()
    }
}
