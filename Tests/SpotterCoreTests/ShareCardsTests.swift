import Foundation
import SpotterTestSupport
import Testing

@testable import SpotterCore

@Suite("Share images")
struct ShareCardsTests {
    private let format = DisplayFormat(timeZone: "Europe/Berlin", unit: .kg)

    @Test("the workout card names the workout, its day, duration, totals and top sets, with user text escaped")
    func workoutCard() {
        let svg = ShareCards.workoutCard(ShareFixtures.workout(), format: format)
        #expect(svg.hasPrefix("<svg xmlns='http://www.w3.org/2000/svg' width='1200' height='630'"))
        #expect(svg.contains("Push &lt;day&gt; &amp; &quot;PR&quot; attempt"))
        #expect(!svg.contains("<day>"))
        #expect(svg.contains(">Workout summary<"))
        #expect(svg.contains("Tue 5 Mar 2024, 18:05 · 1 h 05 min"))
        #expect(svg.contains(">9<"))  // sets: three counted per exercise
        #expect(svg.contains(">48<"))  // reps
        #expect(svg.contains(">3,305 kg<"))  // volume: (512.5 + 500 + 600) + (537.5 + 525 + 630)
        #expect(svg.contains(">3 sets, best 5 × 102.5 kg<"))
        #expect(svg.contains(">3 sets, best 6 reps<"))
        #expect(svg.contains(">Spotter<"))
        // A volume with decimals in pounds fits its tile to the whole pound, not cut with "…".
        let pounds = ShareCards.workoutCard(
            ShareFixtures.workout(), format: DisplayFormat(timeZone: "Europe/Berlin", unit: .lb))
        #expect(pounds.contains(">7,286 lb<"))  // 3,305 kg = 7,286.27 lb
        // A set logged in pounds by a lifter who counts in kilograms shows as typed.
        var typed = ShareFixtures.workout()
        typed.content.exercises[0].sets[1].weight = Mass(255, .lb)
        let card = ShareCards.workoutCard(typed, format: format)
        #expect(card.contains(">3 sets, best 5 × 255 lb<"), "\(card)")
        // A missed attempt (no rep) heavier than every set done is not the best set: a missed
        // single was "best 0 × 150 kg". Only missed sets say so.
        var missed = ShareFixtures.workout()
        missed.content.exercises[0].sets[2].weight = Mass(150, .kg)
        missed.content.exercises[0].sets[2].reps = 0
        let missedCard = ShareCards.workoutCard(missed, format: format)
        #expect(missedCard.contains(">3 sets, best 5 × 102.5 kg<") && !missedCard.contains("best 0"), "\(missedCard)")
        for index in missed.content.exercises[0].sets.indices { missed.content.exercises[0].sets[index].reps = 0 }
        #expect(ShareCards.workoutCard(missed, format: format).contains(">3 sets, missed at 150 kg<"))
    }

    @Test("a name or figure a little too long for its place is set smaller and shown whole, not cut")
    func shrinkToFit() {
        // "Close-Grip Bench Press" (22 characters) was cut at 21 on a progress chart.
        let name = ShareCards.text(
            "Close-Grip Bench Press", x: 64, y: 178, size: 48, weight: "700", fill: "#000", maxWidth: 640, shrinkTo: 30)
        #expect(name.contains(">Close-Grip Bench Press<") && name.contains("font-size='46'"), "\(name)")
        // A six-figure volume ("342,858 kg") was "342,858…" in its tile.
        let volume = ShareCards.text(
            "342,858 kg", x: 0, y: 0, size: 36, weight: "700", fill: "#000", maxWidth: 208, shrinkTo: 22)
        #expect(volume.contains(">342,858 kg<") && !volume.contains("font-size='36'"), "\(volume)")
        // What fits keeps its size; what cannot fit even at the smallest is still cut.
        #expect(
            ShareCards.text("Squat", x: 0, y: 0, size: 48, weight: "700", fill: "#000", maxWidth: 640, shrinkTo: 30)
                .contains("font-size='48'"))
        let long = ShareCards.text(
            String(repeating: "Very long ", count: 10), x: 0, y: 0, size: 48, weight: "700", fill: "#000",
            maxWidth: 640, shrinkTo: 30)
        #expect(long.contains("font-size='30'") && long.contains("…</text>"))
    }

    @Test("a chart of one training day names the day once, under its point, and the formula at the right")
    func oneDayChart() {
        var report = ShareFixtures.progress()
        report.points = [report.points[0]]
        let svg = ShareCards.progressChart(report, format: format, formula: .epley)
        #expect(svg.contains(">2024-03-05 · 1 training day<"), "\(svg)")
        #expect(!svg.contains("2024-03-05 – 2024-03-05"))
        #expect(svg.contains("text-anchor='middle'>2024-03-05<"))
        #expect(svg.contains("text-anchor='end'>estimated by"))
        #expect(svg.contains(">best · no change yet<"))
    }

    @Test("a long name is cut with an ellipsis; past five exercises, four are listed and the rest counted")
    func longCard() {
        let svg = ShareCards.workoutCard(
            ShareFixtures.workout(name: String(repeating: "Very long workout name ", count: 6), exercises: 9),
            format: format)
        #expect(svg.contains("…</text>"))
        #expect(svg.contains(">and 5 more exercises<"))
        #expect(svg.contains(">Accessory 3<"))
        #expect(!svg.contains("Accessory 4"))
    }

    @Test("the progress chart draws one point per day, calls out the best and the change, in the viewer's unit")
    func progressChart() {
        let report = ShareFixtures.progress()
        let svg = ShareCards.progressChart(report, format: DisplayFormat(timeZone: "UTC", unit: .lb), formula: .epley)
        #expect(svg.contains(">Barbell Bench Press<"))
        #expect(svg.components(separatedBy: "<circle").count - 1 == report.points.count + 1)
        let best = report.points.compactMap(\.best?.kilograms).max()!
        #expect(svg.contains(">\(SVG.number(best / 0.45359237)) lb<"))
        // The change is over the calendar days of the range; the header counts the training days.
        #expect(svg.contains(">best · +124.7 lb in 81 days<"))
        #expect(svg.contains(">2024-03-05 – 2024-05-25 · 24 training days<"))
        // A day no set of which gives an estimate is trained, not plotted: the header says so.
        var withHighReps = report
        if var unestimated = withHighReps.points.last {
            unestimated.best = nil
            withHighReps.points.append(unestimated)
        }
        #expect(
            ShareCards.progressChart(withHighReps, format: format, formula: .epley).contains(
                ">2024-03-05 – 2024-05-25 · 24 of 25 days<"))
        #expect(svg.contains(">\(report.points.first!.date)<"))
        #expect(svg.contains(">\(report.points.last!.date)<"))
        // Round grid values, evenly apart.
        for tick in ["200 lb", "250 lb", "300 lb", "350 lb", "400 lb"] { #expect(svg.contains(">\(tick)<"), "\(tick)") }
        #expect(svg.contains(">estimated by Epley<"))

        // The chart says when a point's set counted reps in reserve (it was logged with an RPE).
        var rated = report
        rated.points[0].best?.repsInReserve = 2
        let counted = ShareCards.progressChart(rated, format: format, formula: .brzycki)
        #expect(counted.contains(">estimated by Brzycki with reps in reserve<"))
        #expect(!counted.contains("Epley"))
    }

    @Test("a workout card shows timed and distance work as time and distance, and no duration when none was logged")
    func timedCard() {
        var workout = ShareFixtures.workout()
        workout.content.durationSeconds = 0
        for index in workout.content.exercises[0].sets.indices {
            workout.content.exercises[0].sets[index].reps = 0
            workout.content.exercises[0].sets[index].weight = nil
            workout.content.exercises[0].sets[index].distanceMeters = 1000 * (index + 1)
            workout.content.exercises[0].sets[index].durationSeconds = 330 * (index + 1)
        }
        workout.content.exercises[1].sets = [workout.content.exercises[1].sets.last!]
        workout.content.exercises[1].sets[0].reps = 0
        workout.content.exercises[1].sets[0].weight = nil
        workout.content.exercises[1].sets[0].durationSeconds = 65
        workout.summary = workout.content.summary
        let svg = ShareCards.workoutCard(workout, format: format)
        #expect(svg.contains(">3 sets, best 4 km in 22:00<"))  // the warm-up (1 km) is not counted
        #expect(svg.contains(">1 set, 1:05<"))
        #expect(!svg.contains("0 reps"))
        #expect(svg.contains(">Tue 5 Mar 2024, 18:05<"))
        #expect(!svg.contains("0 min"))
        // With the pull-ups' reps the tiles stay reps and volume.
        #expect(svg.contains(">16<") && svg.contains(">REPS<") && svg.contains(">VOLUME<"), "\(svg)")
        #expect(!svg.contains(">TIME<"))
        // Without them, no reps: the distance and the time take those tiles (2 + 3 + 4 km; 11:00 +
        // 16:30 + 22:00 + 1:05).
        workout.content.exercises.removeLast()
        workout.summary = workout.content.summary
        let run = ShareCards.workoutCard(workout, format: format)
        #expect(run.contains(">9 km<") && run.contains(">DISTANCE<") && !run.contains(">REPS<"), "\(run)")
        #expect(run.contains(">50:35<") && run.contains(">TIME<") && !run.contains(">VOLUME<"))
        #expect(!run.contains(">0<"), "no tile of nothing")
    }

    @Test("a chart with nothing to estimate says so")
    func emptyChart() {
        let report = ShareFixtures.progress(days: 0)
        let svg = ShareCards.progressChart(report, format: format, formula: .brzycki)
        #expect(svg.contains("No sets of Barbell Bench Press to estimate in this range yet."))
        #expect(!svg.contains("<circle"))
    }

    @Test("charts place days by date: a gap of months is months wide; labels stay apart, the last shown, years named")
    func timeAxis() {
        #expect(SVG.dayNumber("1970-01-01") == 0)
        #expect(SVG.dayNumber("2000-03-01") == 11_017)
        #expect(SVG.dayNumber("2024-02-29")! - SVG.dayNumber("2023-02-28")! == 366)
        for bad in ["", "2024-13-01", "2024-02", "2024-x-01", "2024-01-32"] {
            #expect(SVG.dayNumber(bad) == nil, "\(bad)")
        }
        // Two sessions in January, one in July: July sits far right, not a third of the way along.
        let days = ["2025-01-01", "2025-01-11", "2025-07-20"]
        let x = SVG.timeAxis(days, left: 0, right: 200)
        #expect(x[0] == 0 && x[2] == 200)
        #expect(abs(x[1] - 10.0 / 200 * 200) < 0.001)
        #expect(SVG.timeAxis(["2025-01-01"], left: 0, right: 200) == [100])
        #expect(SVG.timeAxis(["2025-01-01", "not a day"], left: 0, right: 200) == [0, 200])
        #expect(SVG.labelled([0, 10, 90, 100, 200, 205], spacing: 80) == [0, 2, 5], "indices")
        #expect(SVG.labelled([0, 10, 20], spacing: 80) == [0])
        #expect(SVG.labelled([0, 100, 150], spacing: 80) == [0, 2])
        #expect(
            SVG.dayLabels(["2024-11-04", "2024-12-30", "2025-01-06", "2025-03-10"]) == [
                "4 Nov 2024", "30 Dec", "6 Jan 2025", "10 Mar 2025",
            ])
    }

    @Test("the progress chart places a day after a long break by its date")
    func progressChartByDate() {
        var report = ShareFixtures.progress()
        let count = report.points.count
        #expect(count >= 3)
        // The last day a year after the one before it: every other point sits in the first part.
        report.points[count - 1].date = "2099-01-01"
        let svg = ShareCards.progressChart(report, format: format, formula: .epley)
        let xs = svg.components(separatedBy: "<circle cx='").dropFirst().compactMap { Double($0.prefix { $0 != "'" }) }
        #expect(xs.count == count + 1)
        #expect(xs[count - 2] < 200, "\(xs)")
        #expect(xs[count - 1] == 1136)
    }
}
