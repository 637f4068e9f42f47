import Foundation
import SpotterCore

/// Server-rendered SVG charts. Every text that reaches the SVG goes through `SVG.escape`, so a chart
/// can be placed into a page unescaped.
enum Charts {
    /// One day's value on a chart (`day` is `YYYY-MM-DD`), with the title a browser shows on hover.
    struct Point {
        var day: String
        var value: Double
        var title: String
    }

    static let width = 720.0
    static let height = 300.0
    private static let right = 16.0
    private static let top = 16.0
    private static let bottom = 40.0

    /// A line through `points` (oldest first), each at its day on a time axis, one circle per point
    /// with its hover title.
    static func line(_ points: [Point], unit: String, description: String) -> String {
        guard !points.isEmpty else { return "" }
        let axis = ValueAxis(points.map(\.value), fromZero: false, unit: unit)
        let positions = SVG.timeAxis(points.map(\.day), left: axis.left, right: width - right)
        func x(_ index: Int) -> Double { positions[index] }
        let y = axis.y
        var svg = open(description)
        svg += axis.svg
        let path = points.enumerated().map {
            "\($0.offset == 0 ? "M" : "L")\(SVG.f(x($0.offset))) \(SVG.f(y($0.element.value)))"
        }
        svg += "<path d='\(path.joined(separator: " "))' fill='none' stroke='#1d4ed8' stroke-width='2'/>"
        for (index, point) in points.enumerated() {
            svg += "<circle class='point' cx='\(SVG.f(x(index)))' cy='\(SVG.f(y(point.value)))' r='4' fill='#1d4ed8'>"
            svg += "<title>\(SVG.escape(point.title))</title></circle>"
        }
        svg += xLabels(points.map(\.day), x: x)
        return canvas(svg + "</svg>", axis)
    }

    /// One bar per point (a period of `periodDays`, named by its first day), from zero, each at its
    /// period on a time axis: weeks without training are gaps, not left out.
    static func bars(_ points: [Point], periodDays: Double, unit: String, description: String) -> String {
        guard !points.isEmpty else { return "" }
        let axis = ValueAxis(points.map(\.value), fromZero: true, unit: unit)
        let left = axis.left
        let plotWidth = width - left - right
        let days = points.map(\.day)
        let span = SVG.daySpan(days).map { Double($0) + periodDays }
        // A period's width of the plot; evenly shared when the days are not dates.
        let slot = span.map { plotWidth * periodDays / $0 } ?? plotWidth / Double(points.count)
        let positions = SVG.timeAxis(days, left: left + slot / 2, right: width - right - slot / 2)
        let barWidth = max(2, slot * 0.7)
        func x(_ index: Int) -> Double { positions[index] }
        let y = axis.y
        var svg = open(description)
        svg += axis.svg
        for (index, point) in points.enumerated() {
            let barTop = y(point.value)
            svg +=
                "<rect class='bar' x='\(SVG.f(x(index) - barWidth / 2))' y='\(SVG.f(barTop))' width='\(SVG.f(barWidth))' "
            svg +=
                "height='\(SVG.f(height - bottom - barTop))' fill='#1d4ed8'><title>\(SVG.escape(point.title))</title></rect>"
        }
        svg += xLabels(days, x: x)
        return canvas(svg + "</svg>", axis)
    }

    private static func open(_ description: String) -> String {
        "<svg class='plot' xmlns='http://www.w3.org/2000/svg' viewBox='0 0 \(SVG.f(width)) \(SVG.f(height))' role='img' "
            + "aria-label='\(SVG.escape(description))' font-family='system-ui, sans-serif' font-size='12'>"
    }

    /// The plot with a copy of its value labels laid over its left edge (`.chart .axis` in the
    /// stylesheet): where the frame is narrower than the chart (a phone) and scrolls, the labels
    /// stay in view over the part of the plot shown, rather than scrolling off with its left end.
    /// Where the whole chart fits, the copy lies exactly over the plot's own labels; it ends short
    /// of the plot's first point and above the dates, so it hides neither. Its width is its
    /// viewBox's share of the plot's, so both scale alike.
    private static func canvas(_ plot: String, _ axis: ValueAxis) -> String {
        let columnWidth = axis.left - 5
        let share = (columnWidth / width * 100_000).rounded() / 1000
        var overlay =
            "<svg class='axis' xmlns='http://www.w3.org/2000/svg' width='\(share)%' "
            + "viewBox='0 0 \(SVG.f(columnWidth)) \(SVG.f(height))' aria-hidden='true' "
            + "font-family='system-ui, sans-serif' font-size='12'>"
        overlay +=
            "<rect width='\(SVG.f(columnWidth))' height='\(SVG.f(height - bottom + 5))' fill='#ffffff' fill-opacity='0.9'/>"
        overlay += axis.labelsSVG + "</svg>"
        return "<div class='canvas'>" + overlay + plot + "</div>"
    }

    /// The value axis: grid lines at round steps (`0 kg`, `2,000 kg`, …), each labelled, and the
    /// plot's left edge just after the widest label.
    private struct ValueAxis {
        var low: Double
        var high: Double
        var ticks: [Double]
        var labels: [String]
        var left: Double

        init(_ values: [Double], fromZero: Bool, unit: String) {
            let ticks = SVG.ticks(values, fromZero: fromZero)
            (self.low, self.high, self.ticks) = (ticks.first!, ticks.last!, ticks)
            labels = ticks.map { SVG.tickText($0, in: ticks) + " " + unit }
            // About 7 px a character of the 12 px font, and a gap before the plot.
            left = max(40, Double(labels.map(\.count).max() ?? 0) * 7 + 12)
        }

        func y(_ value: Double) -> Double { top + (high - value) / (high - low) * (height - top - bottom) }

        var svg: String {
            var svg = ""
            for value in ticks {
                let y = y(value)
                svg +=
                    "<line x1='\(SVG.f(left))' x2='\(SVG.f(width - right))' y1='\(SVG.f(y))' y2='\(SVG.f(y))' stroke='#e5e7eb'/>"
            }
            return svg + labelsSVG
        }

        /// Each grid line's label, right-aligned just before the plot's left edge.
        var labelsSVG: String {
            var svg = ""
            for (value, label) in zip(ticks, labels) {
                svg += "<text x='\(SVG.f(left - 6))' y='\(SVG.f(y(value) + 4))' text-anchor='end' fill='#6b7280'>"
                svg += "\(SVG.escape(label))</text>"
            }
            return svg
        }
    }

    /// Days along the bottom, far enough apart to read, the last always shown; the first and any
    /// in a new year with the year.
    private static func xLabels(_ days: [String], x: (Int) -> Double) -> String {
        let shown = SVG.labelled(days.indices.map(x), spacing: 84)
        var svg = ""
        for (index, label) in zip(shown, SVG.dayLabels(shown.map { days[$0] })) {
            // A label at either edge ends there rather than running out of the picture.
            let anchor = x(index) + 40 > width ? "end" : x(index) - 40 < 0 ? "start" : "middle"
            svg +=
                "<text x='\(SVG.f(x(index)))' y='\(SVG.f(height - bottom + 18))' text-anchor='\(anchor)' fill='#6b7280'>"
            svg += "\(SVG.escape(label))</text>"
        }
        return svg
    }
}
