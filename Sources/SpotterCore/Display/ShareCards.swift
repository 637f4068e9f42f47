import Foundation

/// The pictures a lifter shares: a workout's summary card and an exercise's progress chart, as
/// standalone SVG 1200 × 630 (the size link previews use) with Spotter's branding. Every text
/// that reaches the SVG is escaped. The PNG is rendered from the same SVG (`ImageRenderer`).
public enum ShareCards {
    public static let width = 1200
    public static let height = 630

    private static let font = "DejaVu Sans, Helvetica, Arial, sans-serif"
    private static let ink = "#0f172a"
    private static let muted = "#64748b"
    private static let accent = "#2563eb"

    // MARK: Workout card

    /// Name, date, duration; sets, reps, volume and exercises (distance and time in place of reps
    /// and volume for a workout without them, a run); each exercise's top set (the
    /// heaviest counted set, the most reps among equals). Up to five exercises are listed; past
    /// that four, and how many more.
    public static func workoutCard(_ workout: Workout, format: DisplayFormat) -> String {
        let content = workout.content
        let summary = workout.summary
        var svg = open("Workout summary: \(content.name)")
        svg += header(right: "Workout summary")
        svg += text(content.name, x: 64, y: 196, size: 56, weight: "700", fill: ink, maxWidth: 1040, shrinkTo: 36)
        // A workout logged without a duration shows none, not "0 min".
        let when =
            content.durationSeconds > 0
            ? "\(format.moment(content.startedAt)) · \(format.duration(content.durationSeconds))"
            : format.moment(content.startedAt)
        svg += text(when, x: 64, y: 244, size: 26, fill: muted, maxWidth: 1072)

        // A run or a row has no reps and no volume: its distance and time take their tiles.
        let counted = content.exercises.flatMap(\.sets).filter(\.type.isCounted)
        let meters = counted.compactMap(\.distanceMeters).reduce(0, +)
        let seconds = counted.compactMap(\.durationSeconds).reduce(0, +)
        let tiles = [
            ("Sets", DisplayFormat.grouped(Decimal(summary.setCount))),
            summary.repCount == 0 && meters > 0
                ? ("Distance", format.timedWork(seconds: nil, meters: meters))
                : ("Reps", DisplayFormat.grouped(Decimal(summary.repCount))),
            // Only without reps: beside a plank and pull-ups the plank's minute reads as the workout's.
            summary.repCount == 0 && seconds > 0
                ? ("Time", format.timedWork(seconds: seconds, meters: nil))
                : ("Volume", format.wholeWeight(summary.volume)),
            ("Exercises", "\(summary.exerciseCount)"),
        ]
        for (index, tile) in tiles.enumerated() {
            let x = 64 + index * 272
            svg += "<rect x='\(x)' y='284' width='248' height='112' rx='16' fill='#eff6ff'/>"
            svg += text(tile.1, x: x + 24, y: 342, size: 36, weight: "700", fill: accent, maxWidth: 208, shrinkTo: 22)
            svg += text(tile.0.uppercased(), x: x + 24, y: 376, size: 18, weight: "700", fill: muted, maxWidth: 216)
        }

        // One line per exercise; past five, four and a count.
        let listed = content.exercises.count > 5 ? 4 : content.exercises.count
        for (index, exercise) in content.exercises.prefix(listed).enumerated() {
            let y = 446 + index * 30
            let name = workout.exerciseNames[exercise.exerciseID] ?? "Exercise"
            svg += text(name, x: 64, y: y, size: 22, weight: "700", fill: ink, maxWidth: 600)
            svg += text(
                topSet(exercise, format: format), x: 1136, y: y, size: 22, fill: muted, anchor: "end", maxWidth: 460)
        }
        if listed < content.exercises.count {
            svg += text(
                "and \(content.exercises.count - listed) more exercises", x: 64, y: 446 + listed * 30, size: 22,
                fill: muted, maxWidth: 600)
        }
        return svg + footer() + "</svg>"
    }

    /// `5 × 102.5 kg`, `12 reps` for bodyweight, of the heaviest counted set done (a missed attempt,
    /// no rep, only when it is all there is); for time and distance without reps (a plank, a run) the
    /// farthest set, then the longest: `2 km in 11:00`, `1:05`.
    static func topSet(_ exercise: WorkoutExercise, format: DisplayFormat) -> String {
        let counted = exercise.sets.filter(\.type.isCounted)
        let timed = counted.filter { $0.reps == 0 && ($0.durationSeconds != nil || $0.distanceMeters != nil) }
        if !timed.isEmpty, timed.count == counted.count,
            let top = timed.max(by: {
                ($0.distanceMeters ?? 0, $0.durationSeconds ?? 0) < ($1.distanceMeters ?? 0, $1.durationSeconds ?? 0)
            })
        {
            let work = format.timedWork(seconds: top.durationSeconds, meters: top.distanceMeters)
            return counted.count == 1 ? "1 set, \(work)" : "\(DisplayFormat.count(counted.count, "set")), best \(work)"
        }
        let done = counted.filter { $0.reps > 0 }
        guard
            let top = (done.isEmpty ? counted : done).max(by: {
                ($0.weight ?? .zero, $0.reps) < ($1.weight ?? .zero, $1.reps)
            })
        else { return "\(DisplayFormat.count(exercise.sets.count, "warm-up set"))" }
        let sets = "\(DisplayFormat.count(counted.count, "set"))"
        guard top.reps > 0 else {
            return "\(sets), missed" + (top.weight.map { $0 > .zero ? " at \(format.typedWeight($0))" : "" } ?? "")
        }
        guard let weight = top.weight, weight > .zero else { return "\(sets), best \(top.reps) reps" }
        return "\(sets), best \(top.reps) × \(format.typedWeight(weight))"
    }

    // MARK: Progress chart

    /// The best estimated one-rep max of each training day as a line, with the best estimate
    /// and the change over the range called out.
    public static func progressChart(_ report: ProgressReport, format: DisplayFormat, formula: E1RMFormula)
        -> String
    {
        let name = report.exercise.name
        let points = report.points.compactMap { point in
            point.best.map { (date: point.date, value: format.estimateValue($0.kilograms)) }
        }
        var svg = open("Progress of \(name): estimated one-rep max per training day")
        // Days on which no set gave an estimate (only high reps, say) are trained but not plotted:
        // "24 of 25 days" (a longer phrase does not fit beside the dates).
        let counted =
            points.count == report.points.count
            ? DisplayFormat.count(points.count, "training day")
            : "\(points.count) of \(report.points.count) days"
        let span =
            points.isEmpty
            ? "" : "\(points.first!.date)\(points.count > 1 ? " – \(points.last!.date)" : "") · \(counted)"
        svg += header(right: span)
        svg += text(name, x: 64, y: 178, size: 48, weight: "700", fill: ink, maxWidth: 640, shrinkTo: 30)
        svg += text(
            "Estimated one-rep max, best set of each day", x: 64, y: 218, size: 22, fill: muted, maxWidth: 560)
        guard let first = points.first, let last = points.last,
            let best = points.max(by: { $0.value < $1.value })
        else {
            svg += text(
                "No sets of \(name) to estimate in this range yet.", x: 64, y: 360, size: 30, fill: muted,
                maxWidth: 1072)
            return svg + footer() + "</svg>"
        }
        let unit = format.unit.rawValue
        svg += text(
            "\(SVG.number(best.value)) \(unit)", x: 1136, y: 170, size: 48, weight: "700", fill: accent,
            anchor: "end", maxWidth: 360)
        let change = last.value - first.value
        // Over the calendar days from the first training day to the last: the header's range.
        let days = SVG.daySpan(points.map(\.date)) ?? 0
        let changeText =
            points.count == 1
            ? "no change yet"
            : "\(change >= 0 ? "+" : "−")\(DisplayFormat.oneDecimal(abs(change))) \(unit) in \(DisplayFormat.count(days, "day"))"
        svg += text("best · \(changeText)", x: 1136, y: 208, size: 22, fill: muted, anchor: "end", maxWidth: 420)

        // The plot.
        let (left, right, top, bottom) = (120.0, 1136.0, 262.0, 530.0)
        let ticks = SVG.ticks(points.map(\.value), fromZero: false)
        let (low, high) = (ticks.first!, ticks.last!)
        let positions = SVG.timeAxis(points.map(\.date), left: left, right: right)
        func x(_ index: Int) -> Double { positions[index] }
        func y(_ value: Double) -> Double { top + (high - value) / (high - low) * (bottom - top) }
        for value in ticks {
            svg += "<line x1='\(SVG.f(left))' x2='\(SVG.f(right))' y1='\(SVG.f(y(value)))' y2='\(SVG.f(y(value)))' "
            svg += "stroke='#e2e8f0' stroke-width='2'/>"
            svg += text(
                "\(SVG.tickText(value, in: ticks)) \(unit)", x: Int(left) - 12, y: Int(y(value)) + 7, size: 18,
                fill: muted, anchor: "end", maxWidth: 110)
        }
        let line = points.indices.map { "\($0 == 0 ? "M" : "L")\(SVG.f(x($0))) \(SVG.f(y(points[$0].value)))" }
            .joined(separator: " ")
        if points.count > 1 {
            svg +=
                "<path d='\(line) L\(SVG.f(x(points.count - 1))) \(SVG.f(bottom)) L\(SVG.f(left)) \(SVG.f(bottom)) Z' "
            svg += "fill='\(accent)' fill-opacity='0.10'/>"
        }
        svg += "<path d='\(line)' fill='none' stroke='\(accent)' stroke-width='5' stroke-linejoin='round' "
        svg += "stroke-linecap='round'/>"
        // Circles only while they stay apart.
        if points.count <= 60 {
            for index in points.indices {
                svg += "<circle cx='\(SVG.f(x(index)))' cy='\(SVG.f(y(points[index].value)))' r='7' fill='#ffffff' "
                svg += "stroke='\(accent)' stroke-width='4'/>"
            }
        }
        let bestIndex = points.lastIndex { $0.value == best.value }!
        svg += "<circle cx='\(SVG.f(x(bestIndex)))' cy='\(SVG.f(y(best.value)))' r='11' fill='\(accent)'/>"
        // One day's date sits under its point (in the middle); otherwise the first and last
        // dates under the axis's ends.
        svg +=
            points.count == 1
            ? text(first.date, x: Int(x(0)), y: 562, size: 18, fill: muted, anchor: "middle", maxWidth: 200)
            : text(first.date, x: Int(left), y: 562, size: 18, fill: muted, maxWidth: 200)
        let estimatedBy = formula.describing(
            countingReserve: report.points.contains { $0.best?.repsInReserve != nil })
        // In the middle, or at the right end when one day's date is in the middle.
        svg += text(
            "estimated by \(estimatedBy)", x: Int(points.count == 1 ? right : (left + right) / 2), y: 562, size: 18,
            fill: muted, anchor: points.count == 1 ? "end" : "middle", maxWidth: 500)
        if points.count > 1 {
            svg += text(last.date, x: Int(right), y: 562, size: 18, fill: muted, anchor: "end", maxWidth: 200)
        }
        return svg + footer() + "</svg>"
    }

    // MARK: Pieces

    private static func open(_ description: String) -> String {
        "<svg xmlns='http://www.w3.org/2000/svg' width='\(width)' height='\(height)' viewBox='0 0 \(width) \(height)' "
            + "role='img' aria-label='\(SVG.escape(description))' font-family='\(font)'>"
            + "<title>\(SVG.escape(description))</title>"
            + "<rect width='\(width)' height='\(height)' fill='#ffffff'/>"
            + "<rect width='\(width)' height='12' fill='\(accent)'/>"
    }

    /// The mark (a barbell) and name at the left, `right` at the right.
    private static func header(right: String) -> String {
        var svg = "<g transform='translate(64 60)' fill='\(accent)'>"
        svg += "<rect x='0' y='14' width='8' height='28' rx='2'/><rect x='10' y='6' width='10' height='44' rx='3'/>"
        svg += "<rect x='20' y='25' width='40' height='6' rx='3'/>"
        svg += "<rect x='60' y='6' width='10' height='44' rx='3'/><rect x='72' y='14' width='8' height='28' rx='2'/>"
        svg += "</g>"
        svg += text("Spotter", x: 160, y: 100, size: 34, weight: "700", fill: ink, maxWidth: 300)
        svg += text(right, x: 1136, y: 98, size: 24, fill: muted, anchor: "end", maxWidth: 600)
        return svg
    }

    private static func footer() -> String {
        "<rect y='\(height - 48)' width='\(width)' height='48' fill='#f1f5f9'/>"
            + text(
                "Logged with Spotter · strength training and coaching", x: 64, y: height - 17, size: 18, fill: muted,
                maxWidth: 1000)
    }

    /// One line of text, cut with an ellipsis where it would run past `maxWidth` (estimated at
    /// 0.55 em a character, about DejaVu Sans's average; bold 0.62). With `shrinkTo`, a value too
    /// long at `size` is set smaller first, down to that size, so a name or a figure is whole
    /// wherever it can be.
    static func text(
        _ value: String, x: Int, y: Int, size: Int, weight: String = "400", fill: String, anchor: String = "start",
        maxWidth: Int, shrinkTo minimumSize: Int? = nil
    ) -> String {
        let em = weight == "700" ? 0.62 : 0.55
        var size = size
        if let minimumSize, Double(value.count) * Double(size) * em > Double(maxWidth) {
            size = max(minimumSize, Int(Double(maxWidth) / (Double(value.count) * em)))
        }
        let fits = max(1, Int(Double(maxWidth) / (Double(size) * em)))
        let shown =
            value.count > fits ? String(value.prefix(fits - 1)).trimmingWhitespaces() + "…" : value
        return "<text x='\(x)' y='\(y)' font-size='\(size)' font-weight='\(weight)' fill='\(fill)' "
            + "text-anchor='\(anchor)'>\(SVG.escape(shown))</text>"
    }
}
