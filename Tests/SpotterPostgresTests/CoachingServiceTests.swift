import Foundation
import Postgres
import SpotterCore
import SpotterTestSupport
import Testing

@Suite("Coaching links, tiers, programs and comments on PostgreSQL")
struct CoachingServiceTests {
    private let start = Date(timeIntervalSince1970: 1_795_392_000)  // Monday 2026-11-23 00:00 UTC

    @Test("the coach's tier limits active clients: free 1, Coach more; an expired tier counts as free again")
    func clientLimits() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock(start)
            let coaching = database.coachingService(clock: clock)
            let coach = try await database.lifter("cora", kind: .coach)
            let ada = try await database.lifter("ada")
            let bob = try await database.lifter("bob")
            let cy = try await database.lifter("cyd")

            let first = try await coaching.createInvite(coach, note: "", validDays: 0)
            let second = try await coaching.createInvite(coach, note: "", validDays: 0)
            _ = try await coaching.redeemInvite(ada, code: first.code!, scopes: ["history"])
            // The roster is full: a new code is refused to the coach, naming the tier that takes more.
            await #expect(
                throws: SpotterError.failedPrecondition(
                    "an invite code would be refused now: you have 1 active client, the limit of the free tier; the Coach tier allows 20"
                )
            ) { try await coaching.createInvite(coach, note: "", validDays: 0) }
            // So is an invitation by username, which the lifter could only have refused.
            await #expect(
                throws: SpotterError.failedPrecondition(
                    "an invitation would be refused now: you have 1 active client, the limit of the free tier; the Coach tier allows 20"
                )
            ) { try await coaching.inviteClient(coach, username: "cyd") }
            #expect(try await coaching.links(cy, includeClosed: true).isEmpty)
            // A code made before the roster filled meets the limit when it is redeemed.
            await #expect(
                throws: SpotterError.failedPrecondition(
                    "the coach cannot take new clients at the moment; ask them, or try again later")
            ) { try await coaching.redeemInvite(bob, code: second.code!, scopes: ["history"]) }
            // The refused redemption left the code unused and no link behind.
            #expect(try await coaching.links(bob, includeClosed: true).isEmpty)

            try await database.setTier(coach, .coach, until: start.addingTimeInterval(86_400))
            clock.advance(by: 60)  // Bob joins after Ada
            _ = try await coaching.redeemInvite(bob, code: second.code!, scopes: ["history"])
            // A lifter's request is checked when the coach accepts it.
            _ = try await coaching.requestCoach(cy, username: "cora", scopes: ["details"])
            clock.advance(by: 2 * 86_400)  // the Coach tier has expired: free again, 2 clients already
            await #expect(
                throws: SpotterError.failedPrecondition(
                    "you have 2 active clients, more than the free tier's 1; the Coach tier allows 20")
            ) { try await coaching.respond(coach, other: cy.tenantID.description, accept: true, scopes: []) }
            // Declining is always possible.
            let declined = try await coaching.respond(coach, other: cy.tenantID.description, accept: false, scopes: [])
            #expect(declined.status == .declined)

            // Past the limit the client who joined first stays covered; the later one is listed
            // without data, and reading or assigning to her is refused naming the tier.
            let listed = try await coaching.clients(coach, inactiveDays: 0)
            #expect(listed.map { "\($0.link.lifterName) \($0.beyondTierLimit)" }.sorted() == ["ada false", "bob true"])
            #expect(listed.first { $0.beyondTierLimit }?.workoutsThisWeek == nil)
            // Each lifter's own list says whether the coach sees them now; the coach's list does not.
            #expect(try await coaching.links(bob, includeClosed: false).map(\.paused) == [true])
            #expect(try await coaching.links(ada, includeClosed: false).map(\.paused) == [false])
            #expect(try await coaching.links(coach, includeClosed: false).allSatisfy { !$0.paused })
            _ = try await coaching.clientHistory(
                coach, client: ada.tenantID.description, from: nil, to: nil, text: "", pageSize: 0, pageToken: "")
            let beyond = SpotterError.tierRequired(
                "bob is beyond the 1 client the free tier covers (clients count in the order they joined); "
                    + "end a coaching to make room, or move up: the Coach tier allows 20",
                tier: .coach)
            await #expect(throws: beyond) {
                try await coaching.clientHistory(
                    coach, client: bob.tenantID.description, from: nil, to: nil, text: "", pageSize: 0, pageToken: "")
            }
            let template = try await database.trainingServices(clock: clock).templates.create(
                coach, id: "",
                TemplateDraft(
                    name: "Day A",
                    items: [TemplateItemDraft(exerciseID: Catalog.squat.description, targetSets: 3, repsMin: 5)]))
            await #expect(throws: beyond) {
                try await coaching.assign(
                    coach, client: bob.tenantID.description, templateID: template.id.description, programID: "",
                    note: "")
            }
            #expect(
                try await database.count("SELECT count(*)::int FROM coach_access_log WHERE data = 'history'") == 1,
                "only Ada's history read is logged"
            )
            // Once Ada's link ends, Bob is covered again.
            _ = try await coaching.endLink(ada, other: coach.tenantID.description)
            #expect(try await coaching.clients(coach, inactiveDays: 0).map(\.beyondTierLimit) == [false])
            #expect(try await coaching.links(bob, includeClosed: false).map(\.paused) == [false])
            _ = try await coaching.clientHistory(
                coach, client: bob.tenantID.description, from: nil, to: nil, text: "", pageSize: 0, pageToken: "")
        }
    }

    @Test("links: request/accept both ways, one open link per pair, ending is final and a new link starts afresh")
    func linkLifecycle() async throws {
        try await TestDatabase.with { database in
            let coaching = database.coachingService(clock: TestClock(start))
            let coach = try await database.lifter("cora", kind: .coach)
            let ada = try await database.lifter("ada")
            try await database.setTier(coach, .coach)

            // Kinds are checked: a lifter cannot ask another lifter, nor a coach a coach.
            _ = try await database.lifter("bob")
            await #expect(throws: SpotterError.notFound("no coach with username 'bob'")) {
                try await coaching.requestCoach(ada, username: "bob", scopes: [])
            }
            await #expect(throws: SpotterError.permissionDenied("this call is for lifter accounts")) {
                try await coaching.requestCoach(coach, username: "cora", scopes: [])
            }
            await #expect(
                throws: SpotterError.invalidArgument([
                    FieldViolation(
                        field: "scopes[1]", reason: "'everything' is not a scope (history, details, progress, body)")
                ])
            ) { try await coaching.requestCoach(ada, username: "cora", scopes: ["history", "everything"]) }

            let invited = try await coaching.inviteClient(coach, username: "ADA")
            #expect(invited.status == .pending && invited.requestedBy == .coach && invited.scopes.isEmpty)
            await #expect(
                throws: SpotterError.alreadyExists(
                    field: "username", reason: "you already have a pending or active link with this coach")
            ) { try await coaching.requestCoach(ada, username: "cora", scopes: []) }
            // The coach cannot accept their own invitation.
            await #expect(throws: SpotterError.notFound("no pending request to answer")) {
                try await coaching.respond(coach, other: ada.tenantID.description, accept: true, scopes: [])
            }
            let accepted = try await coaching.respond(
                ada, other: coach.tenantID.description, accept: true, scopes: ["progress", "history"])
            #expect(accepted.status == .active)
            #expect(accepted.scopes == [.history, .progress])
            #expect(accepted.coachName == "cora" && accepted.lifterName == "ada")

            let ended = try await coaching.endLink(coach, other: ada.tenantID.description)
            #expect(ended.status == .ended && ended.endedBy == .coach)
            await #expect(throws: SpotterError.notFound("you have no pending or active link with this coach")) {
                try await coaching.setScopes(ada, coach: coach.tenantID.description, scopes: ["details"])
            }
            // A new request makes a new link; the old one stays in the history.
            let again = try await coaching.requestCoach(ada, username: "cora", scopes: ["details"])
            #expect(again.id != accepted.id)
            #expect(try await coaching.links(ada, includeClosed: false).map(\.id) == [again.id])
            #expect(try await coaching.links(ada, includeClosed: true).count == 2)
            // Withdrawing one's own request ends it; declining the other's declines it.
            #expect(try await coaching.endLink(ada, other: coach.tenantID.description).status == .ended)
        }
    }

    @Test(
        "ending the coaching takes back what the coach assigned: gone from both lists, unfollowed, not back on a new link"
    )
    func endingClosesAssignments() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock(start)
            let coaching = database.coachingService(clock: clock)
            let training = database.trainingServices(clock: clock)
            let coach = try await database.lifter("cora", kind: .coach)
            let ada = try await database.lifter("ada")
            try await database.setTier(coach, .coach)
            let template = try await training.templates.create(
                coach, id: "",
                TemplateDraft(
                    name: "Cora 5x5",
                    items: [TemplateItemDraft(exerciseID: Catalog.squat.description, targetSets: 5, repsMin: 5)]))
            let program = try await coaching.createProgram(
                coach, id: "",
                ProgramDraft(
                    name: "Block", weeks: 1,
                    days: [ProgramDraft.Day(week: 1, weekday: 1, templateID: template.id.description)]))
            for (side, other) in [(ada, coach.tenantID.description), (coach, ada.tenantID.description)] {
                try await coaching.link(coach, ada, scopes: ["history"])
                for (templateID, programID) in [(template.id.description, ""), ("", program.id.description)] {
                    _ = try await coaching.assign(
                        coach, client: ada.tenantID.description, templateID: templateID, programID: programID,
                        note: "")
                }
                _ = try await coaching.follow(ada, programID: program.id.description, startOn: "")
                #expect(try await database.count("SELECT count(*)::int FROM program_follows") == 1)
                #expect(try await coaching.assignments(coach, client: ada.tenantID.description).count == 2)
                clock.advance(by: 60)
                _ = try await coaching.endLink(side, other: other)
                // Gone for both: the coach's list said "Cora 5x5" still after the lifter left.
                #expect(try await coaching.assignments(coach, client: ada.tenantID.description).isEmpty)
                #expect(try await coaching.assignments(ada, client: "").isEmpty)
                #expect(try await database.count("SELECT count(*)::int FROM program_follows") == 0)
                // A new link starts with nothing assigned; the same plans can be assigned again.
                try await coaching.link(coach, ada, scopes: ["history"])
                #expect(try await coaching.assignments(ada, client: "").isEmpty)
                _ = try await coaching.assign(
                    coach, client: ada.tenantID.description, templateID: template.id.description, programID: "",
                    note: "")
                #expect(try await coaching.assignments(ada, client: "").map(\.name) == ["Cora 5x5"])
                _ = try await coaching.endLink(coach, other: ada.tenantID.description)
            }
        }
    }

    @Test("invite codes are single use, expire, can be revoked, and a bad code names the field")
    func invites() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock(start)
            let coaching = database.coachingService(clock: clock)
            let coach = try await database.lifter("cora", kind: .coach)
            let ada = try await database.lifter("ada")
            try await database.setTier(coach, .coachPro)

            await #expect(
                throws: SpotterError.invalid(
                    "code", "must be the 10 letters and digits the coach gave you (this has 2)")
            ) {
                try await coaching.redeemInvite(ada, code: "12", scopes: [])
            }
            await #expect(
                throws: SpotterError.invalid(
                    "code",
                    "has a character no code has (codes leave out 0, 1, I, L and O, which look alike): check it against the code the coach gave you"
                )
            ) {
                try await coaching.redeemInvite(ada, code: "wrongcode1", scopes: [])
            }
            let expiring = try await coaching.createInvite(coach, note: "gym flyer", validDays: 1)
            clock.advance(by: 86_401)
            await #expect(throws: SpotterError.notFound("invite code not found, already used, revoked or expired")) {
                try await coaching.redeemInvite(ada, code: expiring.code!, scopes: [])
            }
            let revoked = try await coaching.createInvite(coach, note: "", validDays: 0)
            try await coaching.revokeInvite(coach, id: revoked.id.uuidString)
            await #expect(throws: SpotterError.notFound("invite code not found, already used, revoked or expired")) {
                try await coaching.redeemInvite(ada, code: revoked.code!, scopes: [])
            }
            // Codes are stored only as hashes.
            #expect(
                try await database.count(
                    "SELECT count(*)::int FROM coach_invites WHERE code_hash = $1::bytea",
                    [
                        "\\x" + Array(revoked.code!.utf8).map { String(format: "%02x", $0) }.joined()
                    ]) == 0)
            #expect(try await coaching.invites(coach).map(\.note) == ["gym flyer"])

            // A request still waiting, either way, is settled by the coach's code: the link is
            // active with the scopes given now; a code from a coach who coaches you already is refused.
            let bob = try await database.lifter("bob")
            _ = try await coaching.requestCoach(ada, username: "cora", scopes: ["history"])
            _ = try await coaching.inviteClient(coach, username: "bob")
            for (lifter, scopes) in [(ada, ["history", "progress"]), (bob, ["details"])] {
                let code = try #require(try await coaching.createInvite(coach, note: "", validDays: 0).code)
                let linked = try await coaching.redeemInvite(lifter, code: code, scopes: scopes)
                #expect(linked.status == .active && linked.scopes == Set(scopes.compactMap(Scope.init(rawValue:))))
                let links = try await coaching.links(lifter, includeClosed: true)
                #expect(links.filter { $0.status == .active }.count == 1)
                // Ada's own request gave way (withdrawn, not declined); the coach's invitation to
                // Bob is the link now, accepted.
                #expect(
                    links.map(\.status).sorted { $0.rawValue < $1.rawValue }
                        == (lifter == ada ? [.active, .ended] : [.active]))
                #expect(!links.contains { $0.status == .declined })
            }
            let third = try #require(try await coaching.createInvite(coach, note: "", validDays: 0).code)
            await #expect(throws: SpotterError.alreadyExists(field: "code", reason: "this coach coaches you already")) {
                try await coaching.redeemInvite(ada, code: third, scopes: [])
            }
            #expect(
                try await coaching.invites(coach).contains {
                    $0.code == nil && $0.usedAt == nil && $0.expiresAt > clock.now
                })
        }
    }

    @Test(
        "a program from a coach: assigned, followed, today's template at its latest version, hidden when the link ends")
    func programs() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock(start.addingTimeInterval(12 * 3600))
            let coaching = database.coachingService(clock: clock)
            let training = database.trainingServices(clock: clock)
            let coach = try await database.lifter("cora", kind: .coach)
            let ada = try await database.lifter("ada")
            try await coaching.link(coach, ada, scopes: ["history"])

            let squatDay = try await training.templates.create(
                coach, id: "",
                TemplateDraft(
                    name: "Squat day",
                    items: [TemplateItemDraft(exerciseID: Catalog.squat.description, targetSets: 3, repsMin: 5)]))
            await #expect(
                throws: SpotterError.invalidArgument([
                    FieldViolation(
                        field: "program.days.template_id",
                        reason: "no template \(Catalog.squat) among yours (week 1 day 1)")
                ])
            ) {
                try await coaching.createProgram(
                    coach, id: "",
                    ProgramDraft(
                        name: "Bad", weeks: 1, days: [.init(week: 1, weekday: 1, templateID: Catalog.squat.description)]
                    ))
            }
            let program = try await coaching.createProgram(
                coach, id: "",
                ProgramDraft(
                    name: "Four weeks", weeks: 4,
                    days: [
                        .init(week: 1, weekday: 1, templateID: squatDay.id.description),
                        .init(week: 1, weekday: 4, templateID: squatDay.id.description),
                    ]))
            #expect(program.templateNames[squatDay.id] == "Squat day")

            // Not yet assigned: the lifter cannot see or follow it.
            await #expect(throws: SpotterError.notFound("program not found")) {
                try await coaching.follow(ada, programID: program.id.description, startOn: "")
            }
            let assignment = try await coaching.assign(
                coach, client: ada.tenantID.description, templateID: "", programID: program.id.description, note: "")
            await #expect(
                throws: SpotterError.alreadyExists(field: "program_id", reason: "is already assigned to this client")
            ) {
                try await coaching.assign(
                    coach, client: ada.tenantID.description, templateID: "", programID: program.id.description,
                    note: "")
            }
            #expect(try await coaching.assignments(ada, client: "").map(\.id) == [assignment.id])
            for typo in ["9999-01-01", "1900-01-01"] {
                await #expect(throws: SpotterError.invalid("start_on", "must be within a year of today (2026-11-23)")) {
                    try await coaching.follow(ada, programID: program.id.description, startOn: typo)
                }
            }
            let follow = try await coaching.follow(ada, programID: program.id.description, startOn: "")
            #expect(follow.startedOn == "2026-11-23")
            var today = try await coaching.today(ada)
            #expect(today.day == PlannedDay(week: 1, weekday: 1, templateID: squatDay.id, state: .training))
            #expect(today.template?.version == 1)

            // The coach edits the template: the lifter sees version 2 and a log from it records 2.
            _ = try await training.templates.update(
                coach, id: squatDay.id.description,
                TemplateDraft(
                    name: "Squat day",
                    items: [TemplateItemDraft(exerciseID: Catalog.squat.description, targetSets: 5, repsMin: 3)]),
                expectedVersion: 1)
            today = try await coaching.today(ada)
            #expect(today.template?.version == 2)
            #expect(today.template?.content.items.first?.targetSets == 5)
            var draft = workoutDraft("Squat day", at: clock.now, exercises: [Catalog.squat])
            draft.templateID = squatDay.id.description
            let logged = try await training.workouts.log(ada, id: "", draft)
            #expect(logged.templateVersion == 2)
            // The lifter reads the coach's template but cannot change it: told so, not "not found".
            let notYours = SpotterError.permissionDenied(
                "this template is your coach's; copy it (CopyTemplate) to change your own version")
            await #expect(throws: notYours) {
                try await training.templates.update(
                    ada, id: squatDay.id.description,
                    TemplateDraft(
                        name: "Mine",
                        items: [TemplateItemDraft(exerciseID: Catalog.squat.description, targetSets: 3, repsMin: 5)]),
                    expectedVersion: nil)
            }
            await #expect(throws: notYours) { try await training.templates.delete(ada, id: squatDay.id.description) }
            await #expect(throws: notYours) {
                try await training.templates.archive(ada, id: squatDay.id.description, archived: true)
            }
            #expect(try await training.templates.get(coach, id: squatDay.id.description).version == 2)

            // Tuesday is rest; the coach's client list counts the week's plan and workouts.
            clock.advance(by: 86_400)
            #expect(try await coaching.today(ada).day?.state == .rest)
            let clients = try await coaching.clients(coach, inactiveDays: 0)
            #expect(clients.first?.plannedThisWeek == 2)
            #expect(clients.first?.workoutsThisWeek == 1)
            #expect(clients.first?.plannedDoneThisWeek == 1, "Monday's workout was logged from the program's day")
            // An extra workout off the plan counts as a workout, not as a planned session done.
            _ = try await training.workouts.log(ada, id: "", workoutDraft("Arms", at: clock.now))
            let withArms = try await coaching.clients(coach, inactiveDays: 0).first
            #expect(withArms?.workoutsThisWeek == 2 && withArms?.plannedDoneThisWeek == 1)
            #expect(clients.first?.inactive == false)
            // A program begun mid-week counts the week's workouts from its first day, as its plan does:
            // Monday's workout came before it ("1 of 1 planned", not "2 of 1").
            _ = try await coaching.follow(ada, programID: program.id.description, startOn: "2026-11-24")
            let fromTuesday = try await coaching.clients(coach, inactiveDays: 0).first
            #expect(fromTuesday?.workoutsThisWeek == 1 && fromTuesday?.plannedDoneThisWeek == 0, "Tuesday's arms only")
            // A program that starts next week has not begun: this week's workouts all count (it
            // showed 0 for a client who had trained three times).
            _ = try await coaching.follow(ada, programID: program.id.description, startOn: "2026-11-30")
            let nextWeek = try await coaching.clients(coach, inactiveDays: 0).first
            #expect(
                nextWeek?.workoutsThisWeek == 2 && nextWeek?.plannedThisWeek == 0, "\(String(describing: nextWeek))")

            // Taking the program back ends the following too: no plan for the lifter or in the coach's
            // list, and a new assignment starts without one until the lifter follows it again.
            try await coaching.unassign(coach, id: assignment.id.uuidString)
            #expect(try await coaching.today(ada).follow == nil)
            #expect(try await coaching.clients(coach, inactiveDays: 0).first?.plannedThisWeek == nil)
            let again = try await coaching.assign(
                coach, client: ada.tenantID.description, templateID: "", programID: program.id.description, note: "")
            #expect(try await coaching.today(ada).follow == nil)
            _ = try await coaching.follow(ada, programID: program.id.description, startOn: "2026-11-24")
            #expect(try await coaching.today(ada).follow?.startedOn == "2026-11-24")
            #expect(again.id != assignment.id)

            // Ending the link hides the assignment, the program and its templates from the lifter.
            _ = try await coaching.endLink(ada, other: coach.tenantID.description)
            #expect(try await coaching.assignments(ada, client: "").isEmpty)
            #expect(try await coaching.today(ada).follow == nil)
            await #expect(throws: SpotterError.notFound("template not found")) {
                try await training.templates.get(ada, id: squatDay.id.description)
            }
            // The workout keeps its reference and version.
            #expect(try await training.workouts.get(ada, id: logged.id.description).templateVersion == 2)

            // Erasing the coach (spotterctl accounts delete) removes their programs, assignments and
            // links; the lifter's data stays.
            let owner = try await database.ownerConnection()
            try await owner.query("DELETE FROM tenants WHERE tenant_id = $1", [coach.tenantID.rawValue])
            #expect(try await database.count("SELECT count(*)::int FROM coach_links") == 0)
            #expect(try await database.count("SELECT count(*)::int FROM assignments") == 0)
            #expect(try await database.count("SELECT count(*)::int FROM program_days") == 0)
            #expect(try await training.workouts.get(ada, id: logged.id.description).id == logged.id)
        }
    }

    @Test("client flags: inactive after N days; a new record since the coach last opened progress")
    func clientFlags() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock(start)
            let coaching = database.coachingService(clock: clock)
            let training = database.trainingServices(clock: clock)
            let coach = try await database.lifter("cora", kind: .coach)
            let ada = try await database.lifter("ada")
            try await database.setTier(coach, .coach)
            try await coaching.link(coach, ada, scopes: ["history", "progress"])

            // No workout yet, coached since just now: not inactive; three days later, inactive.
            var summary = try #require(try await coaching.clients(coach, inactiveDays: 3).first)
            #expect(!summary.inactive && summary.lastWorkoutAt == nil && summary.newRecordExercise == nil)
            #expect(summary.streakWeeks == 0)
            clock.advance(by: 3 * 86_400)
            summary = try #require(try await coaching.clients(coach, inactiveDays: 3).first)
            #expect(summary.inactive)

            clock.advance(by: 3600)
            _ = try await training.workouts.log(
                ada, id: "",
                workoutDraft(at: clock.now, exercises: [Catalog.squat, Catalog.frontSquat], kilograms: 100))
            clock.advance(by: 86_400)
            _ = try await training.workouts.log(
                ada, id: "",
                workoutDraft(at: clock.now, exercises: [Catalog.squat, Catalog.frontSquat], kilograms: 110))
            summary = try #require(try await coaching.clients(coach, inactiveDays: 3).first)
            #expect(!summary.inactive)
            // Front squat is beyond the Coach tier's big three, so only the squat is flagged.
            #expect(summary.newRecordExercise == "Barbell Back Squat")

            // Opening the client's progress marks it seen; a lighter session flags nothing.
            _ = try await coaching.clientProgress(
                coach, client: ada.tenantID.description, exerciseID: Catalog.squat.description, from: nil, to: nil,
                formula: .epley)
            clock.advance(by: 86_400)
            _ = try await training.workouts.log(ada, id: "", workoutDraft(at: clock.now, exercises: [Catalog.squat]))
            summary = try #require(try await coaching.clients(coach, inactiveDays: 3).first)
            #expect(summary.newRecordExercise == nil)
            // A session the coach looked in on midway: begun before she opened progress, logged
            // after. Its record is new to her.
            _ = try await coaching.clientProgress(
                coach, client: ada.tenantID.description, exerciseID: Catalog.squat.description, from: nil, to: nil,
                formula: .epley)
            let begun = clock.now.addingTimeInterval(-1_800)
            clock.advance(by: 1_800)
            _ = try await training.workouts.log(
                ada, id: "", workoutDraft(at: begun, exercises: [Catalog.squat], kilograms: 120))
            summary = try #require(try await coaching.clients(coach, inactiveDays: 3).first)
            #expect(summary.newRecordExercise == "Barbell Back Squat")

            // Six quiet days later (Tuesday of the next week) the client is flagged inactive.
            clock.advance(by: 6 * 86_400)
            summary = try #require(try await coaching.clients(coach, inactiveDays: 3).first)
            #expect(summary.inactive)
            #expect(summary.workoutsThisWeek == 0)  // a new week began on Monday
            #expect(summary.streakWeeks == 1)  // last week's streak lives until this week has passed
            // Without the progress scope there is no record flag, without history no dates.
            _ = try await coaching.setScopes(ada, coach: coach.tenantID.description, scopes: [])
            summary = try #require(try await coaching.clients(coach, inactiveDays: 3).first)
            #expect(summary.lastWorkoutAt == nil && summary.workoutsThisWeek == nil && !summary.inactive)
            #expect(summary.streakWeeks == nil)
        }
    }

    /// A Coach-tier coach and her client Ada, sharing history and progress, for the record flag.
    private struct RecordFlagWorld {
        let clock: TestClock
        let coaching: CoachingService
        let training: TrainingServices
        let coach: Principal
        let ada: Principal

        init(_ database: TestDatabase, start: Date) async throws {
            clock = TestClock(start)
            coaching = database.coachingService(clock: clock)
            training = database.trainingServices(clock: clock)
            coach = try await database.lifter("cora", kind: .coach)
            ada = try await database.lifter("ada")
            try await database.setTier(coach, .coach)
            try await coaching.link(coach, ada, scopes: ["history", "progress"])
        }

        /// The coach opens Ada's progress: what was new is seen.
        func seen() async throws {
            _ = try await coaching.clientProgress(
                coach, client: ada.tenantID.description, exerciseID: Catalog.squat.description, from: nil, to: nil,
                formula: .epley)
        }
    }

    @Test(
        "a client's new-record flag is the New PR trophy's: heavier, or a higher estimated one-rep max with reps in reserve counted; warm-ups and missed lifts are neither"
    )
    func clientRecordFlagByEstimate() async throws {
        try await TestDatabase.with { database in
            let world = try await RecordFlagWorld(database, start: start)
            let (clock, training, ada) = (world.clock, world.training, world.ada)
            let (coaching, coach) = (world.coaching, world.coach)
            func seen() async throws { try await world.seen() }
            func squats(_ sets: [SetDraft]) async throws -> String? {
                clock.advance(by: 86_400)
                var draft = workoutDraft(at: clock.now, exercises: [Catalog.squat])
                draft.exercises[0].sets = sets
                _ = try await training.workouts.log(ada, id: "", draft)
                let flag = try #require(try await coaching.clients(coach, inactiveDays: 3).first).newRecordExercise
                try await seen()
                return flag
            }
            func set(_ reps: Int, _ kilograms: Double, rpe: Double? = nil, type: SetType = .working) -> SetDraft {
                SetDraft(reps: reps, weight: WeightDraft(value: kilograms, unit: .kg), rpe: rpe, type: type)
            }

            #expect(try await squats([set(5, 120)]) == nil)  // the first squats: nothing to beat
            // The same weight for more reps: 120 × 7 estimates 148 kg against 140.
            #expect(try await squats([set(7, 120)]) == "Barbell Back Squat")
            // 120 × 5 with two reps in reserve estimates 148 kg too: equal is no record.
            #expect(try await squats([set(5, 120, rpe: 8)]) == nil)
            // A heavier single with a lower estimate (130 kg against 148) is a record by weight.
            #expect(try await squats([set(1, 130)]) == "Barbell Back Squat")
            // Neither a heavier warm-up nor a missed lift (no reps) is a record.
            #expect(try await squats([set(3, 150, type: .warmUp), set(0, 160, type: .failure)]) == nil)
            // Nor do they raise the bar: 140 × 1 is still a record by weight.
            #expect(try await squats([set(1, 140)]) == "Barbell Back Squat")
        }
    }

    @Test(
        "a client's record flag: a back-dated workout between the window's does not hide its record; the first set with an estimate is none; the newest record names the exercise"
    )
    func clientRecordFlagEdges() async throws {
        try await TestDatabase.with { database in
            let world = try await RecordFlagWorld(database, start: start)
            let (clock, training, ada) = (world.clock, world.training, world.ada)
            let (coaching, coach) = (world.coaching, world.coach)
            func seen() async throws { try await world.seen() }
            func log(_ exercise: ExerciseID, _ reps: Int, _ kilograms: Double, at: Date) async throws {
                _ = try await training.workouts.log(
                    ada, id: "", workoutDraft(at: at, exercises: [exercise], sets: 1, reps: reps, kilograms: kilograms))
            }
            func flag() async throws -> String? {
                try #require(try await coaching.clients(coach, inactiveDays: 3).first).newRecordExercise
            }

            // Bench sets of 15 reps have no estimate (more than 12 counted): a lighter 10 × 60 kg,
            // the first set with one, is no record, as the trophy has it.
            try await log(Catalog.benchPress, 15, 100, at: clock.now)
            try await seen()
            clock.advance(by: 86_400)
            try await log(Catalog.benchPress, 10, 60, at: clock.now)
            #expect(try await flag() == nil)
            try await seen()

            // A workout logged before the coach looked (A, 200 kg, an hour ago); after it, one
            // back-dated to yesterday (S, 190 kg: a record over 100 and 60) and one later (H, 200
            // kg, level with A). S is a record though H, the window's heaviest, is not.
            clock.advance(by: 2 * 86_400)
            try await log(Catalog.benchPress, 1, 200, at: clock.now.addingTimeInterval(-3_600))
            try await seen()
            clock.advance(by: 60)
            try await log(Catalog.benchPress, 1, 190, at: clock.now.addingTimeInterval(-20 * 3_600))
            try await log(Catalog.benchPress, 1, 200, at: clock.now.addingTimeInterval(2 * 3_600))
            #expect(try await flag() == "Barbell Bench Press")
            try await seen()

            // A squat record, then a bench record, then squats that are none: the bench, the
            // newest record, is named.
            try await log(Catalog.squat, 5, 100, at: clock.now.addingTimeInterval(-3 * 86_400))
            try await seen()
            clock.advance(by: 86_400)
            try await log(Catalog.squat, 5, 110, at: clock.now)
            clock.advance(by: 86_400)
            try await log(Catalog.benchPress, 1, 210, at: clock.now)
            clock.advance(by: 86_400)
            try await log(Catalog.squat, 5, 90, at: clock.now)
            #expect(try await flag() == "Barbell Bench Press")
        }
    }

    @Test(
        "assigning shares the coach's custom exercises with the client, also those an assigned template or program takes on later; comments check their set and body"
    )
    func assignmentAndCommentRules() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock(start)
            let coaching = database.coachingService(clock: clock)
            let training = database.trainingServices(clock: clock)
            let coach = try await database.lifter("cora", kind: .coach)
            let ada = try await database.lifter("ada")
            try await coaching.link(coach, ada, scopes: ["details"])
            func custom(_ name: String) async throws -> Exercise {
                try await training.exercises.create(
                    coach, id: "",
                    ExerciseDraft(
                        name: name, category: .push, muscleGroup: .chest, equipment: .machine,
                        instructions: "Press it"))
            }
            let press = try await custom("Cora Press")
            // Ada has an exercise of that name already: her copy of Cora's is named after Cora.
            _ = try await training.exercises.create(
                ada, id: "",
                ExerciseDraft(
                    name: "cora press", category: .push, muscleGroup: .chest, equipment: .barbell, instructions: ""))
            let template = try await training.templates.create(
                coach, id: "",
                TemplateDraft(
                    name: "Press",
                    items: [TemplateItemDraft(exerciseID: press.id.description, targetSets: 3, repsMin: 8)]))
            _ = try await coaching.assign(
                coach, client: ada.tenantID.description, templateID: template.id.description, programID: "", note: "")
            let copy = try await training.exercises.get(ada, press.id.description)
            #expect(copy.name == "Cora Press (cora)" && copy.custom != nil && copy.instructions == "Press it")
            // Ada reads the template with the exercise's name, prefills it and logs it.
            let assigned = try await training.workouts.template(ada, id: template.id.description)
            #expect(assigned.exerciseNames[press.id] == "Cora Press (cora)")
            var today = workoutDraft("Press", at: start, exercises: [press.id])
            today.templateID = template.id.description
            let logged = try await training.workouts.log(ada, id: "", today)
            #expect(logged.exerciseNames[press.id] == "Cora Press (cora)")

            // A custom exercise an assigned template takes on later is shared too.
            let fly = try await custom("Cora Fly")
            _ = try await training.templates.update(
                coach, id: template.id.description,
                TemplateDraft(
                    name: "Press",
                    items: [
                        TemplateItemDraft(exerciseID: press.id.description, targetSets: 3, repsMin: 8),
                        TemplateItemDraft(exerciseID: fly.id.description, targetSets: 3, repsMin: 12),
                    ]),
                expectedVersion: nil)
            #expect(try await training.exercises.get(ada, fly.id.description).name == "Cora Fly")
            // And through an assigned program's days.
            let rows = try await training.templates.create(
                coach, id: "",
                TemplateDraft(
                    name: "Rows",
                    items: [TemplateItemDraft(exerciseID: Catalog.deadlift.description, targetSets: 3, repsMin: 5)]))
            let block = try await coaching.createProgram(
                coach, id: "",
                ProgramDraft(
                    name: "Block", weeks: 1, days: [.init(week: 1, weekday: 1, templateID: rows.id.description)]))
            _ = try await coaching.assign(
                coach, client: ada.tenantID.description, templateID: "", programID: block.id.description, note: "")
            let dip = try await custom("Cora Dip")
            let dips = try await training.templates.create(
                coach, id: "",
                TemplateDraft(
                    name: "Dips", items: [TemplateItemDraft(exerciseID: dip.id.description, targetSets: 3, repsMin: 8)])
            )
            let withDips = ProgramDraft(
                name: "Block", weeks: 1,
                days: [
                    .init(week: 1, weekday: 1, templateID: rows.id.description),
                    .init(week: 1, weekday: 3, templateID: dips.id.description),
                ])
            let updated = try await coaching.updateProgram(
                coach, id: block.id.description, withDips, expectedVersion: nil)
            #expect(try await training.exercises.get(ada, dip.id.description).name == "Cora Dip")
            // The same content again makes no new version (a device saving what it read).
            let again = try await coaching.updateProgram(
                coach, id: block.id.description, withDips, expectedVersion: updated.version)
            #expect(again.version == updated.version && updated.version == block.version + 1)
            // The copies are Ada's: they stay when the coaching ends; nobody else got any.
            let bob = try await database.lifter("bob")
            _ = try await coaching.endLink(ada, other: coach.tenantID.description)
            #expect(try await training.exercises.get(ada, press.id.description).name == "Cora Press (cora)")
            await #expect(throws: SpotterError.self) { try await training.exercises.get(bob, press.id.description) }
            try await coaching.link(coach, ada, scopes: ["details"])

            // A deleted template's assignment is gone from both sides' lists.
            let plain = try await training.templates.create(
                coach, id: "",
                TemplateDraft(
                    name: "Bench",
                    items: [TemplateItemDraft(exerciseID: Catalog.benchPress.description, targetSets: 3, repsMin: 5)]))
            _ = try await coaching.assign(
                coach, client: ada.tenantID.description, templateID: plain.id.description, programID: "", note: "")
            #expect(try await coaching.assignments(ada, client: "").map(\.name).contains("Bench"))
            try await training.templates.delete(coach, id: plain.id.description)
            #expect(!(try await coaching.assignments(ada, client: "").map(\.name).contains("Bench")))
            #expect(!(try await coaching.assignments(coach, client: "").map(\.name).contains("Bench")))

            let workout = try await training.workouts.log(ada, id: "", workoutDraft(at: start, sets: 2))
            await #expect(throws: SpotterError.invalid("set_index", "must be from 0 to 1: exercise 0 has 2 sets")) {
                try await coaching.commentAsCoach(
                    coach, client: ada.tenantID.description, workoutID: workout.id.description, exerciseIndex: 0,
                    setIndex: 2, body: "hm")
            }
            await #expect(throws: SpotterError.invalid("body", "is required")) {
                try await coaching.comment(
                    ada, workoutID: workout.id.description, exerciseIndex: nil, setIndex: nil, body: "  ")
            }
            let fromCoach = try await coaching.commentAsCoach(
                coach, client: ada.tenantID.description, workoutID: workout.id.description, exerciseIndex: 0,
                setIndex: 1, body: "Nice lockout")
            // The lifter may delete any comment on their workouts, the coach's included.
            try await coaching.deleteComment(ada, id: fromCoach.id.uuidString)
            #expect(try await coaching.comments(ada, workoutID: workout.id.description).isEmpty)
        }
    }

    @Test("Assign racing the link's end is assigned or NOT_FOUND \"client not found\", never another error")
    func assignRacingLinkEnd() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock(start)
            let coaching = database.coachingService(clock: clock)
            let training = database.trainingServices(clock: clock)
            let coach = try await database.lifter("cora", kind: .coach)
            let ada = try await database.lifter("ada")
            var outcomes: [String: Int] = [:]
            for round in 0..<16 {
                try await coaching.link(coach, ada, scopes: ["details"])
                let template = try await training.templates.create(
                    coach, id: "",
                    TemplateDraft(
                        name: "Bench \(round)",
                        items: [
                            TemplateItemDraft(exerciseID: Catalog.benchPress.description, targetSets: 3, repsMin: 5)
                        ]))
                async let assigned: String = {
                    do {
                        _ = try await coaching.assign(
                            coach, client: ada.tenantID.description, templateID: template.id.description,
                            programID: "", note: "")
                        return "assigned"
                    } catch {
                        return "\(error)"
                    }
                }()
                async let ended = coaching.endLink(ada, other: coach.tenantID.description)
                outcomes[await assigned, default: 0] += 1
                _ = try await ended
            }
            let allowed: Set = ["assigned", "\(SpotterError.notFound("client not found"))"]
            #expect(Set(outcomes.keys).isSubset(of: allowed), "\(outcomes)")
            // Whatever was assigned went with the link.
            #expect(try await coaching.assignments(ada, client: "").isEmpty)
        }
    }

    @Test("the client list is in each client's access log at most once an hour per coach; other reads every time")
    func overviewOnceAnHour() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock(start)
            let coaching = database.coachingService(clock: clock)
            let cora = try await database.lifter("cora", kind: .coach)
            let dan = try await database.lifter("dan", kind: .coach)
            let ada = try await database.lifter("ada")
            try await database.setTier(cora, .coach)
            try await database.setTier(dan, .coach)
            _ = try await coaching.link(cora, ada, scopes: ["history"])
            _ = try await coaching.link(dan, ada, scopes: ["history"])
            func logged() async throws -> [String] {
                try await coaching.accessLog(ada, coach: "", pageSize: 100, pageToken: "").items.reversed().map {
                    "\($0.coachName) \($0.method)"
                }
            }
            for _ in 0..<5 {
                clock.advance(by: 60)
                _ = try await coaching.clients(cora, inactiveDays: 0)
            }
            _ = try await coaching.clients(dan, inactiveDays: 0)
            _ = try await coaching.clientHistory(
                cora, client: ada.tenantID.description, from: nil, to: nil, text: "", pageSize: 0, pageToken: "")
            _ = try await coaching.clientHistory(
                cora, client: ada.tenantID.description, from: nil, to: nil, text: "", pageSize: 0, pageToken: "")
            #expect(
                try await logged() == [
                    "cora ListClients", "dan ListClients", "cora ListClientWorkouts", "cora ListClientWorkouts",
                ])
            clock.advance(by: 3600)
            _ = try await coaching.clients(cora, inactiveDays: 0)
            #expect(try await logged().last == "cora ListClients", "an hour on, once more")
        }
    }
}
