import Foundation
import SpotterCore
import Testing

@Suite("Program schedule")
struct ProgramScheduleTests {
    private let push = TemplateID.random()
    private let pull = TemplateID.random()

    private func day(_ text: String) throws -> Date { try ProgramSchedule.date(text, field: "d") }

    /// Two weeks: week 1 Monday push, Thursday pull; week 2 Wednesday push.
    private var program: ProgramContent {
        ProgramContent(
            name: "Block", notes: "", weeks: 2,
            days: [
                ProgramDay(week: 2, weekday: 3, templateID: push),
                ProgramDay(week: 1, weekday: 1, templateID: push),
                ProgramDay(week: 1, weekday: 4, templateID: pull),
            ])
    }

    @Test("week 1 is the seven days from the start; each day trains its weekday's template")
    func plan() throws {
        let start = try day("2026-11-23")  // a Monday
        #expect(ProgramSchedule.weekday(start) == 1)
        let monday = ProgramSchedule.plan(program, startedOn: start, on: start)
        #expect(monday == PlannedDay(week: 1, weekday: 1, templateID: push, state: .training))
        let tuesday = ProgramSchedule.plan(program, startedOn: start, on: try day("2026-11-24"))
        #expect(tuesday.state == .rest)
        #expect(ProgramSchedule.plan(program, startedOn: start, on: try day("2026-11-26")).templateID == pull)
        let week2 = ProgramSchedule.plan(program, startedOn: start, on: try day("2026-12-02"))
        #expect(week2 == PlannedDay(week: 2, weekday: 3, templateID: push, state: .training))
        #expect(ProgramSchedule.plan(program, startedOn: start, on: try day("2026-12-07")).state == .finished)
        #expect(ProgramSchedule.plan(program, startedOn: start, on: try day("2026-11-22")).state == .notStarted)
    }

    @Test("a start mid-week shifts the weeks, not the weekdays")
    func midWeekStart() throws {
        let start = try day("2026-11-26")  // a Thursday
        #expect(ProgramSchedule.plan(program, startedOn: start, on: start).templateID == pull)
        // The following Monday is still week 1 (day 4 from the start).
        let monday = ProgramSchedule.plan(program, startedOn: start, on: try day("2026-11-30"))
        #expect(monday == PlannedDay(week: 1, weekday: 1, templateID: push, state: .training))
        // The Wednesday after is week 2.
        #expect(ProgramSchedule.plan(program, startedOn: start, on: try day("2026-12-02")).week == 1)
        #expect(ProgramSchedule.plan(program, startedOn: start, on: try day("2026-12-03")).week == 2)
    }

    @Test("planned days in a Monday–Sunday week count only training days inside the program")
    func plannedInWeek() throws {
        let start = try day("2026-11-23")
        #expect(ProgramSchedule.plannedTemplates(program, startedOn: start, holding: try day("2026-11-25")).count == 2)
        #expect(ProgramSchedule.plannedTemplates(program, startedOn: start, holding: try day("2026-12-06")).count == 1)
        #expect(ProgramSchedule.plannedTemplates(program, startedOn: start, holding: try day("2026-12-09")).count == 0)
        // Started on Thursday: that week has only Thursday's session left.
        #expect(
            ProgramSchedule.plannedTemplates(program, startedOn: try day("2026-11-26"), holding: try day("2026-11-23"))
                .count
                == 1)
    }

    @Test("local days follow the lifter's time zone")
    func localDay() throws {
        // 2026-11-23 03:00 UTC is still Sunday the 22nd in New York.
        let instant = Date(timeIntervalSince1970: 1_795_402_800)
        let newYork = ProgramSchedule.localDay(instant, timeZone: TimeZone(identifier: "America/New_York")!)
        #expect(ProgramSchedule.format(newYork) == "2026-11-22")
        #expect(ProgramSchedule.format(ProgramSchedule.localDay(instant, timeZone: .gmt)) == "2026-11-23")
    }

    @Test("bad dates and drafts name the field")
    func validation() {
        #expect(throws: SpotterError.invalid("start_on", "must be a date like 2026-11-23")) {
            try ProgramSchedule.date("2026-02-30", field: "start_on")
        }
        let draft = ProgramDraft(
            name: " ", weeks: 2,
            days: [
                .init(week: 3, weekday: 8, templateID: "nope"),
                .init(week: 1, weekday: 1, templateID: push.description),
                .init(week: 1, weekday: 1, templateID: pull.description),
            ])
        #expect(
            throws: SpotterError.invalidArgument([
                FieldViolation(field: "program.name", reason: "is required"),
                FieldViolation(field: "program.days[0].week", reason: "must be between 1 and 2"),
                FieldViolation(field: "program.days[0].weekday", reason: "must be between 1 (Monday) and 7"),
                FieldViolation(field: "program.days[0].template_id", reason: "must be a UUID"),
                FieldViolation(field: "program.days[2]", reason: "repeats week 1 day 1: a day has one template"),
            ])
        ) { try draft.validated() }
        // With no valid number of weeks a day's week is not "between 1 and 0".
        let noWeeks = ProgramDraft(
            name: "P", weeks: 0, days: [.init(week: 1, weekday: 1, templateID: push.description)])
        #expect(
            throws: SpotterError.invalidArgument([
                FieldViolation(field: "program.weeks", reason: "must be between 1 and 52")
            ])
        ) { try noWeeks.validated() }
    }

    @Test("invite codes: ten characters without look-alikes; typing is forgiving")
    func inviteCodes() {
        let code = InviteCode.generate()
        #expect(code.count == 10)
        #expect(!code.contains { "01ILO".contains($0) })
        #expect(InviteCode.normalize(code.lowercased()) == code)
        let dashed = String(code.prefix(5)) + "-" + String(code.suffix(5))
        #expect(InviteCode.normalize(dashed) == code)
        #expect(InviteCode.normalize("ABC") == nil)
        #expect(InviteCode.normalize("ABCDEFGHI0") == nil)
    }

    @Test("adherence: each workout answers one planned day of its template, never another template's")
    func plannedDone() {
        let (a, b, c) = (TemplateID.random(), TemplateID.random(), TemplateID.random())
        // Mon A, Wed B, Fri C planned; A on Monday, arms (no template) on Thursday, C on Friday and
        // A again on Saturday: Wednesday's B is still missing.
        #expect(ProgramSchedule.plannedDone(planned: [a, b, c], logged: [a, c, a]) == 2)
        // A planned twice (Mon and Fri) and done twice.
        #expect(ProgramSchedule.plannedDone(planned: [a, b, a], logged: [a, a]) == 2)
        #expect(ProgramSchedule.plannedDone(planned: [], logged: [a]) == 0)
    }

    @Test("coach tiers: client limits and progress gates name the tier that unlocks them")
    func coachTiers() throws {
        #expect(throws: Never.self) {
            try CoachEntitlements.checkCapacity(activeClients: 0, tier: .free, askedBy: .lifter)
        }
        #expect(
            throws: SpotterError.failedPrecondition(
                "the coach cannot take new clients at the moment; ask them, or try again later")
        ) { try CoachEntitlements.checkCapacity(activeClients: 1, tier: .free, askedBy: .lifter) }
        #expect(
            throws: SpotterError.failedPrecondition(
                "you have 20 active clients, the limit of the Coach tier; the Coach Pro tier allows 200")
        ) { try CoachEntitlements.checkCapacity(activeClients: 20, tier: .coach, askedBy: .coach) }
        #expect(throws: Never.self) {
            try CoachEntitlements.checkCapacity(activeClients: 199, tier: .coachPro, askedBy: .coach)
        }
    }
}
