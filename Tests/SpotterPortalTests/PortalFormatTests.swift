import Foundation
import SpotterCore
import Testing

@testable import SpotterPortal

@Suite("Portal number formatting")
struct PortalFormatTests {
    @Test(
        "a session's label names the browser and the system, never versions",
        arguments: [
            (
                "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
                "Web portal · Chrome on Linux"
            ),
            (
                "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1",
                "Web portal · Safari on iPhone"
            ),
            (
                "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0",
                "Web portal · Edge on Windows"
            ),
            (
                "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36",
                "Web portal · Chrome on Android"
            ),
            (
                "Mozilla/5.0 (Macintosh; Intel Mac OS X 14.7; rv:133.0) Gecko/20100101 Firefox/133.0",
                "Web portal · Firefox on macOS"
            ),
            ("curl/8.5.0", "Web portal"), ("", "Web portal"),
        ])
    func browserLabel(agent: String, label: String) {
        #expect(BrowserLabel.label(userAgent: agent) == label)
    }

    @Test(
        "one decimal, rounded half away from zero, no negative zero",
        arguments: [
            (0.0, "0.0"), (128.25, "128.3"), (135.649, "135.6"), (-1.25, "-1.3"), (-0.04, "0.0"), (0.05, "0.1"),
            (1_234_567.89, "1234567.9"), (Double.nan, "–"),
        ])
    func oneDecimal(value: Double, text: String) {
        #expect(Format.oneDecimal(value) == text)
    }

    @Test("weights and axis values group thousands, as the share cards do, in the viewer's unit")
    func grouped() {
        let kilograms = Format(timeZone: "UTC", unit: .kg)
        #expect(kilograms.weight(Mass(Decimal(string: "6150")!, .kg)) == "6,150 kg")
        #expect(kilograms.weight(Mass(Decimal(string: "102.5")!, .kg)) == "102.5 kg")
        #expect(kilograms.weight(Mass(Decimal(string: "1234567.25")!, .kg)) == "1,234,567.25 kg")
        #expect(kilograms.weight(nil) == "bodyweight")
        #expect(Format(timeZone: "UTC", unit: .lb).weight(Mass(1_000, .lb)) == "1,000 lb")
        #expect(Format.count(1, "exercise") == "1 exercise" && Format.count(0, "set") == "0 sets")
        #expect(SVG.number(6_765.4) == "6,765" && SVG.number(99.94) == "99.9" && SVG.number(.infinity) == "–")
    }

    @Test("a set's weight also names the other unit when only that one holds it exactly, as logged")
    func setWeight() {
        let kilograms = Format(timeZone: "UTC", unit: .kg)
        let pounds = Format(timeZone: "UTC", unit: .lb)
        #expect(kilograms.setWeight(Mass(135, .lb)) == "61.23 kg (135 lb)")
        #expect(kilograms.setWeight(Mass(Decimal(string: "102.5")!, .lb)) == "46.49 kg (102.5 lb)")
        #expect(pounds.setWeight(Mass(100, .kg)) == "220.46 lb (100 kg)")
        #expect(pounds.setWeight(Mass(Decimal(string: "1100.25")!, .kg)) == "2,425.64 lb (1,100.25 kg)")
        // Exact in the viewer's unit: one unit, whatever else holds it.
        #expect(kilograms.setWeight(Mass(100, .kg)) == "100 kg" && pounds.setWeight(Mass(135, .lb)) == "135 lb")
        #expect(kilograms.setWeight(.zero) == "0 kg" && kilograms.setWeight(nil) == "bodyweight")
        // Exact in neither (an import's 61.2345 kg): the viewer's unit alone.
        #expect(pounds.setWeight(Mass(kilograms: Decimal(string: "61.2345")!)) == "135 lb")
    }
}

@Suite("Portal dates")
struct PortalDateTests {
    private func format(_ zone: String) -> Format {
        Format(
            Profile(
                tenantID: TenantID(rawValue: UUID()), accountID: AccountID(rawValue: UUID()), kind: .coach, email: "",
                emailVerifiedAt: nil, username: "", displayName: "", timeZone: zone, unit: .kg,
                tier: TierGrant(tier: .free), status: .active, createdAt: Date()))
    }

    @Test("days and moments in the viewer's time zone")
    func written() {
        let moment = Date(timeIntervalSince1970: 1_795_472_700)  // 2026-11-23 22:25 UTC
        #expect(format("UTC").day(moment) == "Mon 23 Nov 2026")
        #expect(format("UTC").moment(moment) == "Mon 23 Nov 2026, 22:25")
        #expect(format("Europe/Berlin").moment(moment) == "Mon 23 Nov 2026, 23:25")
        #expect(format("Asia/Tokyo").moment(moment) == "Tue 24 Nov 2026, 07:25")
        #expect(format("Asia/Tokyo").day(moment) == "Tue 24 Nov 2026")
        #expect(format("UTC").moment(Date(timeIntervalSince1970: 1_767_229_500)) == "Thu 1 Jan 2026, 01:05")
    }

    @Test("a calendar date reads as a day or a month in words, whatever the viewer's zone; other text as it is")
    func calendarDates() {
        for zone in ["UTC", "Pacific/Kiritimati", "Pacific/Pago_Pago"] {
            #expect(format(zone).day("2026-11-23") == "Mon 23 Nov 2026")
            #expect(format(zone).month("2026-11-01") == "Nov 2026")
        }
        #expect(format("UTC").day("2026-02-30") == "2026-02-30" && format("UTC").month("") == "")
    }

    @Test("a typed day is the start of that local day; an impossible one is nil")
    func parsed() {
        let berlin = format("Europe/Berlin")
        #expect(berlin.date("2026-11-23") == Date(timeIntervalSince1970: 1_795_388_400))
        #expect(berlin.date("2026-11-23", end: true) == Date(timeIntervalSince1970: 1_795_474_800))
        // The day the clocks go back has 25 hours.
        #expect(berlin.date("2026-10-25", end: true)!.timeIntervalSince(berlin.date("2026-10-25")!) == 90_000)
        for text in ["2026-02-30", "2026-13-01", "26-11-23", "2026-11-3", "yesterday", ""] {
            #expect(berlin.date(text) == nil, "\(text)")
        }
    }
}

@Suite("Portal invite list")
struct PortalInviteListTests {
    @Test("every open invite, then the five last closed in the past two weeks; the new one is shown apart")
    func shown() {
        let now = Date(timeIntervalSince1970: 1_795_472_700)
        func invite(_ note: String, used: Double? = nil, expires: Double = 7) -> CoachInvite {
            CoachInvite(
                id: UUID(), code: nil, note: note, createdAt: now.addingTimeInterval(-20 * 86_400),
                expiresAt: now.addingTimeInterval(expires * 86_400),
                usedAt: used.map { now.addingTimeInterval(-$0 * 86_400) })
        }
        let fresh = invite("fresh")
        let open = [invite("open 1"), invite("open 2"), fresh]
        let used = (1...8).map { invite("used \($0)", used: Double($0)) }
        let old = [
            invite("used long ago", used: 15), invite("expired long ago", expires: -20),
            invite("expired", expires: -2.5),
        ]
        let shown = CoachRoutes.shownInvites(open + used + old, at: now, except: fresh.id).map(\.note)
        #expect(shown == ["open 1", "open 2", "used 1", "used 2", "expired", "used 3", "used 4"])
    }
}

@Suite("Portal streak sentence")
struct PortalStreakTests {
    private let format = DisplayFormat(timeZone: "UTC", unit: .kg)

    @Test("a running streak, one week, a broken one, none")
    func sentences() {
        #expect(
            CoachRoutes.streak(
                WeeklyStreak(current: 5, longest: 12, currentSince: "2026-10-19", lastWeek: "2026-11-16"), format)
                == "Streak: 5 weeks in a row since the week of Mon 19 Oct 2026 (longest: 12 weeks).")
        #expect(
            CoachRoutes.streak(
                WeeklyStreak(current: 1, longest: 1, currentSince: "2026-11-16", lastWeek: "2026-11-16"), format)
                == "Streak: 1 week since the week of Mon 16 Nov 2026 (longest: 1 week).")
        #expect(
            CoachRoutes.streak(WeeklyStreak(current: 0, longest: 3, currentSince: nil, lastWeek: "2026-09-07"), format)
                == "No workout in the last two weeks; the last was in the week of Mon 7 Sep 2026 (longest: 3 weeks).")
        #expect(CoachRoutes.streak(.none, format) == nil)
        #expect(CoachRoutes.thisWeek(workouts: 2, planned: 3, plannedDone: 2) == "2 of 3 planned")
        // Monday's and Friday's planned sessions and arms on Thursday; Wednesday's was missed.
        #expect(CoachRoutes.thisWeek(workouts: 3, planned: 3, plannedDone: 2) == "2 of 3 planned · 1 more")
        #expect(
            CoachRoutes.thisWeek(workouts: 7, planned: 0, plannedDone: 0) == "7",
            "a program that has ended plans nothing")
        #expect(CoachRoutes.thisWeek(workouts: 1, planned: nil, plannedDone: nil) == "1")
    }
}

@Suite("Portal charts")
struct PortalChartTests {
    static func xs(_ svg: String, of element: String, attribute: String) -> [Double] {
        svg.components(separatedBy: "<\(element) ").dropFirst().compactMap { piece in
            // The element's own attributes: up to the end of its tag.
            " \(piece.prefix { $0 != ">" })".components(separatedBy: " \(attribute)='").dropFirst().first.flatMap {
                Double($0.prefix { $0 != "'" })
            }
        }
    }

    @Test("a line is drawn by date: after a long break the last point sits far right; labels name the year")
    func lineByDate() {
        let days = ["2025-01-06", "2025-01-13", "2025-01-20", "2025-12-01"]
        let svg = Charts.line(
            days.enumerated().map { .init(day: $1, value: 100 + Double($0), title: $1) }, unit: "kg",
            description: "e1RM")
        let xs = Self.xs(svg, of: "circle", attribute: "cx")
        #expect(xs.count == 4)
        // Two weeks of a year's width: the first three sit within the first tenth of the plot.
        #expect(xs[2] - xs[0] < (xs[3] - xs[0]) / 10, "\(xs)")
        #expect(svg.contains(">6 Jan 2025</text>") && svg.contains(">1 Dec 2025</text>"), "the last names its year")
        #expect(!svg.contains(">13 Jan</text>"), "too close to the first to be labelled")
    }

    @Test("the value axis steps in round numbers and leaves room for its widest label")
    func valueAxis() {
        #expect([0.3, 1, 1.6, 2.2, 3.75, 1_691, 0].map(SVG.roundStep) == [0.5, 1, 2, 2.5, 5, 2_000, 1])
        let bars = Charts.bars(
            [.init(day: "2026-11-16", value: 6_150, title: ""), .init(day: "2026-11-23", value: 3_300, title: "")],
            periodDays: 7, unit: "kg", description: "volume")
        for label in ["0 kg", "2,000 kg", "4,000 kg", "6,000 kg", "8,000 kg"] {
            #expect(bars.contains(">\(label)</text>"), "\(label)")
        }
        // Every label ends 6 px left of the plot, which starts after the widest ("8,000 kg").
        let ends = PortalChartTests.xs(bars, of: "text", attribute: "x").filter { $0 < 100 }
        #expect(ends.allSatisfy { $0 >= 8 * 7 }, "\(ends)")
        let line = Charts.line(
            [.init(day: "2026-11-18", value: 80.1, title: ""), .init(day: "2026-11-25", value: 81.2, title: "")],
            unit: "kg", description: "body weight")
        #expect(line.contains(">80.0 kg</text>") && line.contains(">81.5 kg</text>"), "\(line)")
    }

    @Test("a copy of the value labels lies over the plot's left edge, scaled as the plot is")
    func labelsOverlay() throws {
        let line = Charts.line(
            [.init(day: "2026-11-18", value: 80.1, title: ""), .init(day: "2026-11-25", value: 81.2, title: "")],
            unit: "kg", description: "body weight")
        let parts = line.components(separatedBy: "<svg class='plot'")
        try #require(parts.count == 2)
        let (overlay, plot) = (parts[0], parts[1])
        #expect(overlay.hasPrefix("<div class='canvas'><svg class='axis'") && overlay.contains("aria-hidden='true'"))
        #expect(line.hasSuffix("</svg></div>"))
        for label in ["80.0 kg", "80.5 kg", "81.0 kg", "81.5 kg"] {
            #expect(overlay.contains(">\(label)</text>") && plot.contains(">\(label)</text>"), "\(label)")
        }
        // The copy's labels sit where the plot's do, and its width is its viewBox's share of the plot's.
        let levels = Self.xs(overlay, of: "text", attribute: "y")
        #expect(levels.count == 5 && Array(Self.xs(plot, of: "text", attribute: "y").prefix(5)) == levels)
        let width = try #require(
            Double(overlay.components(separatedBy: "width='").dropFirst().first?.prefix { $0 != "%" } ?? ""))
        let box = try #require(
            overlay.components(separatedBy: "viewBox='0 0 ").dropFirst().first?.split(separator: " "))
        let left = try #require(Double(box[0]))
        #expect(box[1].hasPrefix("300.0'"))
        #expect(abs(width - left / Charts.width * 100) < 0.001, "\(width)% for \(left) of \(Charts.width)")
        // It ends before the plot's first point (radius 4) and leaves the dates below the plot uncovered.
        let firstPoint = try #require(Self.xs(plot, of: "circle", attribute: "cx").first)
        #expect(left < firstPoint - 4, "\(left) against \(firstPoint)")
        let cover = try #require(Self.xs(overlay, of: "rect", attribute: "height").first)
        let dates = Self.xs(plot, of: "text", attribute: "y").dropFirst(5)
        #expect(!dates.isEmpty && dates.allSatisfy { $0 - 12 > cover }, "\(cover) against \(Array(dates))")
    }

    @Test("bars stand at their periods: a week without training is a gap")
    func barsByPeriod() {
        let weeks = ["2026-10-05", "2026-10-12", "2026-11-02"]
        let svg = Charts.bars(
            weeks.map { .init(day: $0, value: 1_000, title: $0) }, periodDays: 7, unit: "kg", description: "volume")
        let xs = Self.xs(svg, of: "rect", attribute: "x")
        #expect(xs.count == 3)
        // 12 Oct to 2 Nov is three weeks: three times the step from 5 Oct to 12 Oct.
        #expect(abs((xs[2] - xs[1]) - 3 * (xs[1] - xs[0])) < 0.2, "\(xs)")
        #expect(svg.contains(">5 Oct 2026</text>"))
    }
}

@Suite("Portal: the access log in the lifter's words")
struct PortalAccessWordsTests {
    @Test("a coach following a guided session live is said so, not 'a workout in detail'")
    func watchedSession() {
        let format = Format(timeZone: "UTC", unit: .kg)
        func entry(_ kind: AccessKind, _ method: String) -> AccessLogEntry {
            AccessLogEntry(
                id: 1, coachID: TenantID.random(), coachName: "Cora", accessedAt: Date(), kind: kind, method: method)
        }
        #expect(
            LifterRoutes.what(entry(.details, "WatchClientSession"), format) == "your guided session, as it happened")
        #expect(LifterRoutes.what(entry(.details, "GetClientWorkout"), format) == "a workout in detail")
        #expect(LifterRoutes.what(entry(.history, "ListClientWorkouts"), format) == "your workout history")
    }
}
