import Foundation
import SpotterCore
import SpotterTestSupport
import Testing

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
        #expect(svg.contains("over \(report.points.count) days"))
        #expect(svg.contains(">\(report.points.first!.date)<"))
        #expect(svg.contains(">\(report.points.last!.date)<"))
    }

    @Test("a chart with nothing to estimate says so")
    func emptyChart() {
        let report = ShareFixtures.progress(days: 0)
        let svg = ShareCards.progressChart(report, format: format, formula: .brzycki)
        #expect(svg.contains("No sets of Barbell Bench Press to estimate in this range yet."))
        #expect(!svg.contains("<circle"))
    }
}
