import Foundation
import SpotterCore
import Testing

@Suite("Run analysis: synthetic runs")
struct RunAnalysisFixtureTests {
    @Test("a steady 10 minutes at 170 a minute: cadence 170, 1,800 m, no pauses, swerves or weaving")
    func steady() throws {
        let run = try RunAnalysis.analyze(runFixture("steady.csv"))
        #expect(run.footsteps == 1_701)
        #expect(run.durationSeconds == 600)
        #expect(run.movingSeconds == 600)
        #expect(abs(run.cadence - 170) < 0.01, "\(run.cadence)")
        #expect(run.pauses.isEmpty)
        #expect(run.swerves.isEmpty, "\(run.swerves)")
        #expect(run.weavingMinutes == 0)
        #expect(run.directionSource == .compass)
        #expect(run.minutes.map(\.footsteps) == Array(repeating: 170, count: 9) + [171])
        #expect(run.minutes.allSatisfy { $0.seconds == 60 })
        let meters = try #require(run.distanceMeters)
        #expect(abs(meters - 1_800) < 18, "\(meters) m")
    }

    @Test("three pauses of 5, 30 and 2 s (and a 1.999 s gap that is none) come off the moving time")
    func pauses() throws {
        let run = try RunAnalysis.analyze(runFixture("pauses.csv"))
        #expect(run.pauses.map(\.seconds) == [5, 30, 2])
        for (pause, at) in zip(run.pauses, [60_000, 200_000, 350_000] as [Int64]) {
            #expect((at..<at + 400).contains(pause.startMilliseconds), "\(pause)")
        }
        #expect(abs(run.movingSeconds - (run.durationSeconds - 37)) < 1e-9)
        // The 1.999 s gap is moving time with one step in it, where 170 a minute would have 5.7.
        let expected = 170 * (run.movingSeconds - 1.999 + 60.0 / 170) / run.movingSeconds
        #expect(abs(run.cadence - expected) < 0.01, "\(run.cadence), not \(expected)")
        #expect(run.minutes.map(\.pauses) == [0, 1, 0, 1, 0, 1, 0, 0])
        #expect(run.swerves.isEmpty, "\(run.swerves)")
        #expect(run.weavingMinutes == 0)
    }

    /// The zig-zag's turns, seconds after its first footstep, and their signed sizes.
    static let zigzagTurns: [(seconds: Int64, degrees: Double)] =
        [(65, 45)]
        + [80, 95, 110, 130, 150, 170, 200, 220, 250, 260, 270, 280, 290].enumerated().map {
            ($0.element, $0.offset % 2 == 0 ? -90 : 90)
        }

    @Test(
        "a zig-zag: 14 swerves where it turns, weaving in minutes 1 (4 swerves), 3 (2 and 2 pauses) and 4 (5)",
        arguments: [
            ("zigzag.csv", RunDirectionSource.compass), ("zigzag_headings.csv", .compass),
            ("zigzag_positions.csv", .positions),
        ])
    func zigzag(file: String, source: RunDirectionSource) throws {
        let run = try RunAnalysis.analyze(runFixture(file))
        #expect(run.directionSource == source)
        #expect(run.swerves.count == Self.zigzagTurns.count, "\(run.swerves)")
        for (swerve, turn) in zip(run.swerves, Self.zigzagTurns) {
            let at = 1_500 + turn.seconds * 1_000
            #expect((at - 3_000...at + 3_000).contains(swerve.offsetMilliseconds), "\(swerve) for \(turn)")
            #expect(abs(swerve.turnDegrees - turn.degrees) < 15, "\(swerve) for \(turn)")
        }
        #expect(run.minutes.map(\.swerves) == [0, 4, 3, 2, 5, 0])
        #expect(run.minutes.map(\.pauses) == [0, 0, 0, 2, 0, 0])
        #expect(run.minutes.filter(\.weaving).map(\.index) == [1, 3, 4])
        #expect(run.weavingMinutes == 3)
        #expect((run.distanceMeters != nil) == (source == .positions || file == "zigzag.csv"))
    }

    @Test(
        "out 450 m and back: the turn-around is a U-turn, not a swerve",
        arguments: [
            ("out_and_back.csv", RunDirectionSource.compass), ("out_and_back_headings.csv", .compass),
            ("out_and_back_positions.csv", .positions),
        ])
    func outAndBack(file: String, source: RunDirectionSource) throws {
        let run = try RunAnalysis.analyze(runFixture(file))
        #expect(run.directionSource == source)
        #expect(run.swerves.isEmpty, "\(run.swerves)")
        #expect(run.weavingMinutes == 0)
        if file != "out_and_back_headings.csv" {
            let meters = try #require(run.distanceMeters)
            #expect(abs(meters - 900) < 15, "\(meters) m")
        } else {
            #expect(run.distanceMeters == nil)
        }
    }

    @Test("the analysis survives a trip through JSON")
    func codable() throws {
        let run = try RunAnalysis.analyze(runFixture("zigzag.csv"))
        let decoded = try JSONDecoder().decode(RunAnalysis.self, from: JSONEncoder().encode(run))
        #expect(decoded == run)
    }
}

@Suite("Run analysis: the spec's definitions")
struct RunAnalysisRuleTests {
    @Test("four swerves in a minute are weaving; three are not")
    func fourSwerves() throws {
        let run = try RunAnalysis.analyze(jog(seconds: 150, turns: [10, 22, 34, 46, 70, 85, 100]))
        #expect(run.minutes.map(\.swerves) == [4, 3, 0])
        #expect(run.minutes.map(\.weaving) == [true, false, false])
        #expect(run.weavingMinutes == 1)
    }

    @Test("two swerves and two pauses in a minute are weaving; with one pause they are not")
    func swervesAndPauses() throws {
        let run = try RunAnalysis.analyze(
            jog(seconds: 150, turns: [10, 30, 70, 90], pauses: [(20, 3_000), (40, 2_000), (80, 2_500)]))
        #expect(run.minutes.map(\.swerves) == [2, 2, 0])
        #expect(run.minutes.map(\.pauses) == [2, 1, 0])
        #expect(run.minutes.map(\.weaving) == [true, false, false])
    }

    @Test("a compass heading on every other footstep measures turns (the window after needs one heading fewer)")
    func sparseHeadings() throws {
        // 120 footsteps 350 ms apart, headings only on the even ones: 0°, then 60° from 20 s.
        let samples = (0..<120).map { index in
            let offset = Int64(index) * 350
            return FootstepSample(
                offsetMilliseconds: offset, headingDegrees: index % 2 == 0 ? (offset < 20_000 ? 0 : 60) : nil)
        }
        let run = try RunAnalysis.analyze(samples)
        #expect(run.directionSource == .compass)
        #expect(run.swerves.count == 1)
        #expect(abs((run.swerves.first?.turnDegrees ?? 0) - 60) < 1e-6)
    }

    @Test("a gap of exactly 2.000 s is a pause; 1.999 s is not")
    func pauseEdge() throws {
        let run = try RunAnalysis.analyze(jog(seconds: 60, pauses: [(20, 2_000), (40, 1_999)]))
        #expect(run.pauses.count == 1)
        #expect(run.pauses.first?.seconds == 2)
        #expect(abs(run.movingSeconds - (run.durationSeconds - 2)) < 1e-9)
    }

    @Test(
        "a turn of 30° up to (not including) 150° is a swerve; less is sway, more is a U-turn",
        arguments: [(29.5, false), (30, true), (30.5, true), (90, true), (149.5, true), (150.5, false), (180, false)])
    func turnSizes(degrees: Double, swerve: Bool) throws {
        for sign in [1.0, -1.0] {
            let run = try RunAnalysis.analyze(jog(seconds: 60, turns: [30], to: { _ in 360 + sign * degrees }))
            #expect(run.swerves.count == (swerve ? 1 : 0), "\(sign * degrees)°: \(run.swerves)")
            if let turn = run.swerves.first?.turnDegrees {
                #expect(abs(turn - sign * degrees) < 1e-6, "\(turn)")
            }
        }
    }

    @Test("a curve of 90° over a second and a half is one swerve, not several")
    func curveIsOneSwerve() throws {
        let curve = (1...5).map { (30 + Double($0) * 0.3, Double($0) * 18) }
        let run = try RunAnalysis.analyze(jog(seconds: 60, headings: curve))
        #expect(run.swerves.count == 1, "\(run.swerves)")
        #expect(abs((run.swerves.first?.turnDegrees ?? 0) - 90) < 1e-6)
    }

    @Test("a sharp turn, a steady curve the same way and another sharp turn are one swerve")
    func turnThatKeepsGoing() throws {
        // 35° at once, 10°/s for 6 s (20° between the windows either side: under 30°, over 15°), 35° more.
        var turn: [(Double, Double)] = [(20, 35)]
        for step in 1...12 {
            let seconds = Double(step) / 2
            turn.append((20 + seconds, 35 + 10 * seconds))
        }
        turn.append((26.5, 130))
        let run = try RunAnalysis.analyze(jog(seconds: 60, headings: turn))
        #expect(run.swerves.count == 1, "\(run.swerves)")
        #expect(abs((run.swerves.first?.turnDegrees ?? 0) - 130) < 1e-6)
    }

    @Test("a slow bend of 90° over 30 s is a curve in the road, not a swerve")
    func bendIsNoSwerve() throws {
        let bend = (1...30).map { (10 + Double($0), Double($0) * 3) }
        let run = try RunAnalysis.analyze(jog(seconds: 60, headings: bend))
        #expect(run.swerves.isEmpty, "\(run.swerves)")
    }

    @Test("minutes count from the first footstep; the last is as long as the run lasted into it")
    func minutesFromFirstFootstep() throws {
        // The first footstep is 10 s after the run's start; a swerve 55 s after it is in minute 0.
        let run = try RunAnalysis.analyze(jog(seconds: 150, start: 10, turns: [55]))
        #expect(run.minutes.map(\.seconds) == [60, 60, 30])
        #expect(run.minutes.map(\.swerves) == [1, 0, 0])
        #expect(run.minutes.map(\.index) == [0, 1, 2])
    }

    @Test("a pause is counted in the minute it began in")
    func pauseMinute() throws {
        let run = try RunAnalysis.analyze(jog(seconds: 150, pauses: [(59.5, 5_000)]))
        #expect(run.pauses.count == 1)
        #expect(run.minutes.map(\.pauses) == [1, 0, 0])
    }

    @Test("without headings or positions there are no swerves, so no weaving, whatever the pauses")
    func noDirections() throws {
        let run = try RunAnalysis.analyze(
            jog(seconds: 60, turns: [10, 20, 30, 40], pauses: [(15, 3_000), (35, 3_000)], compass: false))
        #expect(run.directionSource == .none)
        #expect(run.swerves.isEmpty)
        #expect(run.minutes.map(\.pauses) == [2])
        #expect(run.weavingMinutes == 0)
        #expect(run.distanceMeters == nil)
    }

    @Test("positions are used when fewer than half the footsteps carry a heading")
    func strayHeadings() throws {
        var samples = try runFixture("zigzag_positions.csv")
        for index in stride(from: 0, to: samples.count, by: 3) { samples[index].headingDegrees = 0 }
        #expect(try RunAnalysis.analyze(samples).directionSource == .positions)
        for index in stride(from: 1, to: samples.count, by: 3) { samples[index].headingDegrees = 0 }
        let compass = try RunAnalysis.analyze(samples)
        #expect(compass.directionSource == .compass)
        #expect(compass.swerves.isEmpty)
    }

    @Test("cadence is over the moving time: a steady 170 stays 170 with a minute's pause")
    func cadenceOverMovingTime() throws {
        let run = try RunAnalysis.analyze(jog(seconds: 180, pauses: [(60, 60_000)]))
        #expect(abs(run.cadence - 170) < 0.01, "\(run.cadence)")
        #expect(abs(run.movingSeconds - 120) < 0.5)
    }

    @Test("no distance when the positions leave more than 30 s of running uncovered")
    func distanceNeedsCoverage() throws {
        let samples = try runFixture("steady.csv")
        func clearing(_ range: ClosedRange<Int64>) throws -> Double? {
            let cleared = samples.map { sample in
                var sample = sample
                if range.contains(sample.offsetMilliseconds) { (sample.latitude, sample.longitude) = (nil, nil) }
                return sample
            }
            return try RunAnalysis.analyze(cleared).distanceMeters
        }
        #expect(try clearing(100_000...129_000) != nil)
        #expect(try clearing(100_000...131_000) == nil)
        #expect(try clearing(0...29_500) != nil)
        #expect(try clearing(0...31_000) == nil)
        #expect(try clearing(570_500...600_000) != nil)
        #expect(try clearing(569_000...600_000) == nil)
    }
}

@Suite("Run analysis: validation")
struct RunAnalysisValidationTests {
    @Test("footsteps out of order name the sample and the one before it")
    func outOfOrder() {
        let found = problems(steps([0, 500, 400, 900, 1_300]))
        #expect(
            found == [
                FieldViolation(
                    field: "samples[2].offset_ms",
                    reason: "is 0.400 s, before samples[1] at 0.500 s (samples must be in time order)")
            ])
    }

    @Test("a repeated time is named")
    func duplicated() {
        let found = problems(steps([0, 500, 500, 900]), field: "run.samples")
        #expect(
            found == [
                FieldViolation(field: "run.samples[2].offset_ms", reason: "repeats run.samples[1]'s time 0.500 s")
            ])
    }

    @Test("footsteps closer than 120 ms are refused; 120 ms apart are fine")
    func tooClose() throws {
        let found = problems(steps([0, 500, 619, 1_000]))
        #expect(
            found == [
                FieldViolation(
                    field: "samples[2].offset_ms",
                    reason:
                        "is 0.119 s after samples[1] (footsteps must be at least 0.120 s apart, at most 500 a minute)")
            ])
        #expect(try RunAnalysis.analyze(steps([0, 500, 620, 1_000])).footsteps == 4)
    }

    @Test("offsets before the run's start or past 24 hours are refused")
    func offsetRange() throws {
        let found = problems(steps([-40, 500, 86_400_001]))
        #expect(found.map(\.field) == ["samples[0].offset_ms", "samples[2].offset_ms"])
        #expect(found.first?.reason == "is -0.040 s, before the run's start (must be 0 or more)")
        #expect(found.last?.reason == "is 86400.001 s, past the longest run (24 h)")
        #expect(try RunAnalysis.analyze(steps([0, 86_400_000])).footsteps == 2)
    }

    @Test("a latitude without a longitude and the reverse are named")
    func halfPositions() {
        var samples = steps([0, 500, 1_000, 1_500])
        samples[1].latitude = 52.5
        samples[3].longitude = 13.4
        let found = problems(samples)
        #expect(found.map(\.field) == ["samples[1].longitude", "samples[3].latitude"])
    }

    @Test("coordinates out of range or not numbers are named")
    func coordinateRange() {
        var samples = steps([0, 500, 1_000])
        (samples[0].latitude, samples[0].longitude) = (90.5, 0)
        (samples[1].latitude, samples[1].longitude) = (0, -180.5)
        (samples[2].latitude, samples[2].longitude) = (.nan, .infinity)
        let found = problems(samples)
        #expect(
            found.map(\.field) == [
                "samples[0].latitude", "samples[1].longitude", "samples[2].latitude", "samples[2].longitude",
            ])
    }

    @Test("a heading of 360 or not a number is named; 0 and 359.9 are fine")
    func headings() throws {
        var samples = steps([0, 500, 1_000, 1_500])
        samples[1].headingDegrees = 360
        samples[2].headingDegrees = .nan
        samples[3].headingDegrees = -0.1
        let found = problems(samples)
        #expect(
            found.map(\.field) == [
                "samples[1].heading_degrees", "samples[2].heading_degrees", "samples[3].heading_degrees",
            ])
        #expect(found.first?.reason == "is 360.0, must be a number from 0 up to (not including) 360")
        samples[1].headingDegrees = 0
        samples[2].headingDegrees = 359.9
        samples[3].headingDegrees = nil
        #expect(try RunAnalysis.analyze(samples).footsteps == 4)
    }

    @Test("a position 1 km from the last is an absurd speed, named at the sample that jumped")
    func absurdSpeed() {
        var samples = positioned(count: 200) { index in (north: Double(index) * 1.06, east: 0) }
        for index in 120..<200 { samples[index] = moved(samples[index], east: 1_000) }
        let found = problems(samples)
        #expect(found.first?.field == "samples[120]")
        #expect(found.first?.reason.hasPrefix("is 1000 m from samples[91] 10.237 s earlier: over ") == true, "\(found)")
        #expect(found.first?.reason.hasSuffix(" m/s even allowing 50 m of GPS error (at most 12.0 m/s)") == true)
        #expect(found.count == 1, "one jump, one problem: \(found.map(\.field))")
    }

    @Test("20 m/s for a minute is refused; fixes wobbling 40 m between footsteps are not a speed")
    func sustainedSpeedAndJitter() throws {
        let fast = positioned(count: 200) { index in (north: Double(index) * 20 * 0.353, east: 0) }
        #expect(!problems(fast).isEmpty)
        let wobbling = positioned(count: 200) { index in (north: Double(index) * 1.06, east: index % 2 == 0 ? 0 : 40) }
        #expect(try RunAnalysis.analyze(wobbling).footsteps == 200)
    }

    @Test("fewer than 2 footsteps or more than 100,000 are refused; 100,000 are analysed")
    func counts() throws {
        #expect(
            problems([]) == [
                FieldViolation(field: "samples", reason: "must have at least 2 footsteps, not 0")
            ])
        #expect(problems(steps([0])).map(\.field) == ["samples"])
        let most = (0..<Int64(100_000)).map { FootstepSample(offsetMilliseconds: $0 * 300, headingDegrees: 0) }
        #expect(try RunAnalysis.analyze(most).footsteps == 100_000)
        let found = problems(most + [FootstepSample(offsetMilliseconds: 30_000_000)])
        #expect(
            found == [
                FieldViolation(
                    field: "samples",
                    reason:
                        "has 100001 footsteps, more than the 100000 a run may have (samples[100000] onwards are too many)"
                )
            ])
    }

    @Test("at most 20 problems are listed, then one line counts the rest")
    func capped() {
        let found = problems(steps(Array(repeating: 1_000, count: 101)))
        #expect(found.count == 21)
        #expect(found.first?.field == "samples[1].offset_ms")
        #expect(found.last == FieldViolation(field: "samples", reason: "has 80 more problems not listed here"))
    }
}

// MARK: Runs to analyse

/// Footsteps at 170 a minute for `seconds` after the first, which is `start` seconds into the run, with
/// a compass heading (none when `compass` is false): north, turning at each of `turns` to `to(n)` (east
/// and back by default), or to each `headings` entry's heading at its time; each `pauses` entry
/// follows the footstep at or after its time by its gap in milliseconds.
private func jog(
    seconds: Double, start: Double = 0, turns: [Double] = [], to: (Int) -> Double = { $0 % 2 == 0 ? 90 : 0 },
    headings: [(Double, Double)] = [], pauses: [(Double, Int64)] = [], compass: Bool = true
) -> [FootstepSample] {
    let changes = (turns.enumerated().map { ($0.element, to($0.offset)) } + headings).sorted { $0.0 < $1.0 }
    var pauses = pauses.sorted { $0.0 < $1.0 }
    var samples: [FootstepSample] = []
    var base: Int64 = 0
    var step: Int64 = 0
    func time(_ step: Int64) -> Int64 { Int64((Double(step) * 60_000 / 170).rounded()) }
    while true {
        let elapsed = base + time(step)
        guard Double(elapsed) <= seconds * 1_000 else { break }
        let heading = (changes.last { $0.0 * 1_000 <= Double(elapsed) }?.1 ?? 0).truncatingRemainder(dividingBy: 360)
        samples.append(
            FootstepSample(
                offsetMilliseconds: Int64(start * 1_000) + elapsed, headingDegrees: compass ? heading : nil))
        if let pause = pauses.first, Double(elapsed) >= pause.0 * 1_000 {
            base += pause.1 - (time(step + 1) - time(step))
            pauses.removeFirst()
        }
        step += 1
    }
    return samples
}

/// The violations `analyze` throws for `samples`; an issue if it throws none.
private func problems(_ samples: [FootstepSample], field: String = "samples") -> [FieldViolation] {
    violations { () throws(SpotterError) in try RunAnalysis.analyze(samples, field: field) }
}

/// Footsteps at these offsets, nothing else.
private func steps(_ offsets: [Int64]) -> [FootstepSample] { offsets.map { FootstepSample(offsetMilliseconds: $0) } }

/// `count` footsteps 353 ms apart at these metres from a point in Berlin.
private func positioned(count: Int, at place: (Int) -> (north: Double, east: Double)) -> [FootstepSample] {
    (0..<count).map { index in
        moved(FootstepSample(offsetMilliseconds: Int64(index) * 353, latitude: 52.52, longitude: 13.405), place(index))
    }
}

/// `sample` moved by these metres.
private func moved(_ sample: FootstepSample, _ by: (north: Double, east: Double)) -> FootstepSample {
    var sample = sample
    let radius = 6_371_008.8
    sample.latitude = sample.latitude! + by.north / radius * 180 / .pi
    sample.longitude = sample.longitude! + by.east / (radius * cos(52.52 * .pi / 180)) * 180 / .pi
    return sample
}

private func moved(_ sample: FootstepSample, east: Double) -> FootstepSample { moved(sample, (north: 0, east: east)) }

/// A run from `Tests/Fixtures/Runs` (written by its `make_runs.py`).
private func runFixture(_ name: String) throws -> [FootstepSample] {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/Runs/\(name)")
    let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n").dropFirst()
    return try lines.map { line in
        let cells = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        guard cells.count == 4, let offset = Int64(cells[0]) else { throw FixtureError(line: String(line)) }
        return FootstepSample(
            offsetMilliseconds: offset, latitude: Double(cells[1]), longitude: Double(cells[2]),
            headingDegrees: Double(cells[3]))
    }
}

private struct FixtureError: Error { var line: String }
