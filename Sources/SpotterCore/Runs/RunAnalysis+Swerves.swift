import Foundation

extension RunAnalysis {
    /// The direction just before and just after one footstep; `nil` where it is unclear (mid-turn).
    struct TurnProbe {
        var offsetMilliseconds: Int64
        var before: Double?
        var after: Double?

        var turn: Double? {
            guard let before, let after else { return nil }
            return Angle.turn(from: before, to: after)
        }

        /// Turning by `degrees` or more, or in the middle of a turn.
        func isTurning(atLeast degrees: Double) -> Bool {
            turn.map { abs($0) >= degrees - RunRules.turnTolerance } ?? true
        }
    }

    /// The swerves, measured on the compass when most footsteps have a heading, otherwise on the
    /// positions; with neither there are none.
    static func findSwerves(_ samples: [FootstepSample]) -> (RunDirectionSource, [RunSwerve]) {
        let headings = samples.count { $0.headingDegrees != nil }
        if Double(headings) >= RunRules.compassShare * Double(samples.count) {
            return (.compass, swerves(compassProbes(samples)))
        }
        let positioned = samples.filter { $0.position != nil }
        if positioned.count >= 2 { return (.positions, swerves(positionProbes(positioned))) }
        return (.none, [])
    }

    /// Each run of turning probes is one turn, so a curve is one swerve however many footsteps it
    /// takes: it starts at `RunRules.minimumTurnDegrees` and lasts while the change stays at
    /// `RunRules.turnEndDegrees` or more the same way, or is unclear. A `nil` probe (no data on one
    /// side) ends it; a turn the same way within `RunRules.turnMergeMilliseconds` continues it.
    static func swerves(_ probes: [TurnProbe?]) -> [RunSwerve] {
        var turns: [Turn] = []
        func close(_ turn: Turn) {
            if let last = turns.last, last.clockwise != nil, last.clockwise == turn.clockwise,
                turn.probes[0].offsetMilliseconds - last.probes[last.probes.count - 1].offsetMilliseconds
                    < RunRules.turnMergeMilliseconds
            {
                turns[turns.count - 1].probes += turn.probes
            } else {
                turns.append(turn)
            }
        }
        var current: Turn?
        for probe in probes {
            if let probe, current?.continues(with: probe) == true {
                current?.add(probe)
                continue
            }
            if let current { close(current) }
            // The probe that ends one turn may start the next, the other way.
            current = probe.flatMap { $0.isTurning(atLeast: RunRules.minimumTurnDegrees) ? Turn($0) : nil }
        }
        if let current { close(current) }
        return turns.compactMap(\.swerve)
    }

    /// A probe at each footstep with a heading: the mean heading over the window before it (itself
    /// included) against the mean over the window after. The window after holds no footstep of its
    /// own, so it needs one heading fewer: with a heading on every other footstep it holds one fewer
    /// than the window before, and asking both for the same number left every turn unmeasured.
    static func compassProbes(_ samples: [FootstepSample]) -> [TurnProbe?] {
        let track = samples.compactMap { sample in sample.headingDegrees.map { (sample.offsetMilliseconds, $0) } }
        // Running sums of the headings' unit vectors make each window's mean O(1).
        var sines = [0.0]
        var cosines = [0.0]
        for (_, heading) in track {
            sines.append(sines[sines.count - 1] + sin(heading * .pi / 180))
            cosines.append(cosines[cosines.count - 1] + cos(heading * .pi / 180))
        }
        func mean(_ range: Range<Int>) -> Double? {
            let y = sines[range.upperBound] - sines[range.lowerBound]
            let x = cosines[range.upperBound] - cosines[range.lowerBound]
            guard (x * x + y * y).squareRoot() / Double(range.count) >= RunRules.minimumHeadingClarity else {
                return nil
            }
            return Angle.normalized(atan2(y, x) * 180 / .pi)
        }

        let window = RunRules.headingWindowMilliseconds
        var low = 0
        var high = 0
        var probes: [TurnProbe?] = []
        for (index, (offset, _)) in track.enumerated() {
            while track[low].0 <= offset - window { low += 1 }
            while high < track.count && track[high].0 <= offset + window { high += 1 }
            let before = low..<(index + 1)
            let after = (index + 1)..<high
            guard before.count >= RunRules.minimumWindowHeadings, after.count >= RunRules.minimumWindowHeadings - 1
            else {
                probes.append(nil)
                continue
            }
            probes.append(TurnProbe(offsetMilliseconds: offset, before: mean(before), after: mean(after)))
        }
        return probes
    }

    /// A probe at each positioned footstep: the bearing from the nearest earlier position
    /// `RunRules.bearingMeters` away against the bearing to the nearest such later one.
    static func positionProbes(_ samples: [FootstepSample]) -> [TurnProbe?] {
        // Metres east and north of the first position on a plane: over a city that is within 0.5 %
        // of the sphere, and far cheaper than a haversine for the hundreds of look-ups a footstep
        // can take where the jogger jogs on the spot.
        let origin = samples[0].position!
        let metresPerDegree = GeoPoint.earthRadiusMeters * .pi / 180
        let points = samples.map { sample in
            let position = sample.position!
            return (
                offset: sample.offsetMilliseconds,
                east: Angle.turn(from: origin.longitude, to: position.longitude) * metresPerDegree
                    * cos(origin.latitude * .pi / 180),
                north: (position.latitude - origin.latitude) * metresPerDegree
            )
        }
        let reach = RunRules.bearingReachMilliseconds
        let minimum = RunRules.bearingMeters * RunRules.bearingMeters
        func farEnough(from index: Int, through others: some Sequence<Int>) -> Int? {
            for other in others {
                guard abs(points[other].offset - points[index].offset) <= reach else { return nil }
                let east = points[other].east - points[index].east
                let north = points[other].north - points[index].north
                if east * east + north * north >= minimum { return other }
            }
            return nil
        }
        func bearing(_ from: Int, _ to: Int) -> Double {
            Angle.normalized(
                atan2(points[to].east - points[from].east, points[to].north - points[from].north) * 180 / .pi)
        }
        return points.indices.map { index in
            guard let back = farEnough(from: index, through: (0..<index).reversed()),
                let ahead = farEnough(from: index, through: (index + 1)..<points.count)
            else { return nil }
            return TurnProbe(
                offsetMilliseconds: points[index].offset, before: bearing(back, index), after: bearing(index, ahead))
        }
    }
}

/// Consecutive probes that make one turn.
private struct Turn {
    var probes: [RunAnalysis.TurnProbe]
    /// To the right, to the left (`false`), or `nil` while every probe is unclear.
    var clockwise: Bool?

    init(_ probe: RunAnalysis.TurnProbe) {
        probes = [probe]
        clockwise = probe.turn.map { $0 > 0 }
    }

    func continues(with probe: RunAnalysis.TurnProbe) -> Bool {
        guard let turn = probe.turn else { return true }
        return abs(turn) >= RunRules.turnEndDegrees && (clockwise ?? (turn > 0)) == (turn > 0)
    }

    mutating func add(_ probe: RunAnalysis.TurnProbe) {
        probes.append(probe)
        if clockwise == nil { clockwise = probe.turn.map { $0 > 0 } }
    }

    /// The swerve the turn makes, if it is one. Its size is the larger of the sharpest probe's and
    /// the whole turn's (the direction before its first probe to after its last): the sharpest
    /// sees a quick zig-zag whose ends point the same way, the whole sees a wide U-turn.
    var swerve: RunSwerve? {
        let sharpest = probes.filter { $0.turn != nil }.max { abs($0.turn!) < abs($1.turn!) }
        var whole: Double?
        if let before = probes[0].before, let after = probes[probes.count - 1].after {
            whole = Angle.turn(from: before, to: after)
        }
        guard let degrees = [sharpest?.turn, whole].compactMap({ $0 }).max(by: { abs($0) < abs($1) }),
            abs(degrees) >= RunRules.minimumTurnDegrees - RunRules.turnTolerance, abs(degrees) < RunRules.uTurnDegrees
        else { return nil }
        return RunSwerve(
            offsetMilliseconds: (sharpest ?? probes[probes.count / 2]).offsetMilliseconds, turnDegrees: degrees)
    }
}
