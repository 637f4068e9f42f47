import Foundation
import HTTPTypes
import SpotterCore
import SpotterTestSupport
import Testing

/// The coach portal's routes in the access matrix: every route that reads or changes the owner's
/// data (or names it), asked by every tenant of the RPC matrix's world, signed in to the portal.
/// Each route answers what its service call answers in `CoachingAccessMatrixTests`, turned into a
/// page: success is the page (or, for a form, the redirect after it), a hidden object is the one
/// "Page not found" page, byte for byte the same as for ids that name nothing, a missing scope
/// says what is not shared, a tier refusal says which tier; no page carries another tenant's ids
/// or names, and each successful read adds exactly the access-log row the RPC adds.
@Suite("Portal access matrix")
struct PortalAccessMatrixTests {
    private let start = Date(timeIntervalSince1970: 1_790_000_000)

    @Test("every portal route answers every caller as the matching RPC does, never with another tenant's data")
    func matrix() async throws {
        try await TestDatabase.with { database in
            let clock = TestClock(start)
            try await PortalHarness.with(database, clock: clock) { portal in
                let world = try await World.build(database, portal.coaching, portal.training, clock)
                var browsers: [Role: Browser] = [:]
                for role in Role.allCases { browsers[role] = try await portal.signedIn(role.rawValue) }
                let owner = try await database.ownerConnection()
                let rpcRows = Dictionary(uniqueKeysWithValues: matrixRows().map { ($0.name, $0) })
                var cells = 0
                for row in portalRows(rpcRows) {
                    for role in Role.allCases {
                        guard let expected = row.expected(role) else { continue }
                        cells += 1
                        let cell = "\(row.route) as \(role)"
                        clock.advance(by: 1)
                        let browser = browsers[role]!
                        let before = try await accessLog(of: world.id(.owner), owner)
                        let page = try await row.send(browser, role, world)
                        let added = Array(try await accessLog(of: world.id(.owner), owner).dropFirst(before.count))
                        assertNoForeignData(page.html, visible: row.visible(role), world, cell)
                        let answer = PortalAnswer(expected, post: row.form != nil)
                        #expect(
                            answer.statuses.contains(page.status), "\(cell): status \(page.status), wanted \(answer)")
                        #expect(
                            // A reason may open the page's sentence: its first letter capitalised.
                            answer.texts.isEmpty
                                || answer.texts.contains { page.html.localizedCaseInsensitiveContains($0) },
                            "\(cell): the page does not say \(answer.texts)\n\(page.html.suffix(1_500))")
                        if case .success = expected {
                            let logged = row.logs(role).map { [$0] + row.alsoLogs } ?? []
                            #expect(
                                added == logged.map { LogRow(coach: world.id(role), kind: $0.kind, method: $0.method) },
                                "\(cell): access-log rows added")
                        } else {
                            #expect(added.isEmpty, "\(cell): a refused request added access-log rows \(added)")
                        }
                        if case .failure(.notFound) = expected {
                            let twin = try await row.send(browser, role, row.twin(world))
                            #expect(twin.status == page.status, "\(cell): the same route naming nothing")
                            #expect(
                                twin.html == page.html, "\(cell): the page differs from the one for ids naming nothing")
                        }
                    }
                }
                #expect(cells > 130)
                // The owner's own comment survived every coach's attempt to delete it.
                #expect(
                    try await database.count(
                        "SELECT count(*)::int FROM workout_comments WHERE tenant_id = $1 AND comment_id = $2",
                        [world.id(.owner).rawValue, UUID(uuidString: world.comment)!]) == 1)
                await owner.close()
            }
        }
    }
}

/// What a page must be for an RPC outcome: its possible statuses and a text it must contain.
private struct PortalAnswer: CustomStringConvertible {
    var statuses: [HTTPResponse.Status]
    var texts: [String]

    init(_ outcome: MatrixOutcome, post: Bool) {
        switch outcome {
        case .success:
            statuses = [post ? .seeOther : .ok]
            texts = []
        case .failure(.notFound):
            statuses = [.notFound]
            texts = ["There is nothing here, or it is not shared with you."]
        case .failure(coachOnly):
            statuses = [.notFound]
            texts = ["This page is for coach accounts."]
        case .failure(lifterOnly):
            statuses = [.notFound]
            texts = ["This page is for lifter accounts."]
        case .failure(.scopeNotGranted):
            // A page read without the scope shows the page with the section replaced; a form is refused.
            statuses = [.ok, .forbidden]
            texts = ["has not shared", "has not granted you"]
        case .failure(.tierRequired(let message, _)):
            statuses = [.forbidden]
            texts = [message.contains("Coach Pro tier") ? "Coach Pro tier" : "Coach tier"]
        case .failure(.permissionDenied(let message)):
            statuses = [.forbidden]
            texts = [String(message.dropFirst())]
        case .failure(.failedPrecondition):
            statuses = [.conflict]
            texts = ["That did not work"]
        case .failure(.alreadyExists(_, let reason)):
            statuses = [.conflict]
            texts = [reason]
        case .failure(let error):
            statuses = []
            texts = ["no page for \(error)"]
        }
    }

    var description: String { "\(statuses.map(\.code)) saying \(texts)" }
}

/// One portal route in the matrix.
private struct PortalRow {
    var route: String
    var path: (Role, World) -> String
    /// The fields POSTed; `nil` for a GET.
    var form: ((Role, World) -> [(String, String)])?
    var expected: (Role) -> MatrixOutcome?
    var logs: (Role) -> (kind: AccessKind, method: String)?
    /// Further reads the page makes, logged after `logs`'s when that one is.
    var alsoLogs: [(kind: AccessKind, method: String)] = []
    var visible: (Role) -> Set<Role>
    var twin: (World) -> World

    /// The route answers what the RPC matrix row `rpc` answers; `adjust` changes what the portal
    /// does differently (a lifter-only page refuses coaches, say).
    init(
        _ route: String, like rpc: MatrixRow, path: @escaping (Role, World) -> String,
        form: ((Role, World) -> [(String, String)])? = nil,
        alsoLogs: [(kind: AccessKind, method: String)] = [],
        adjust: @escaping (Role, MatrixOutcome?) -> MatrixOutcome? = { $1 }
    ) {
        self.route = route
        self.path = path
        self.form = form
        self.expected = { adjust($0, rpc.expected($0)) }
        self.logs = rpc.logs
        self.alsoLogs = alsoLogs
        self.visible = rpc.visible
        self.twin = rpc.twin
    }

    /// A route with answers of its own.
    init(
        _ route: String, path: @escaping (Role, World) -> String, form: ((Role, World) -> [(String, String)])?,
        expected: @escaping (Role) -> MatrixOutcome?, visible: @escaping (Role) -> Set<Role> = { [$0] }
    ) {
        self.route = route
        self.path = path
        self.form = form
        self.expected = expected
        self.logs = { _ in nil }
        self.visible = visible
        self.twin = { $0.randomized() }
    }

    /// A route with no RPC of its own: a coach's page about the owner that reads nothing of theirs.
    init(_ route: String, coachPage path: @escaping (Role, World) -> String) {
        self.init(route, path: path, form: nil, expected: coachCall(needs: nil), visible: coachAndOwner)
    }

    func send(_ browser: Browser, _ role: Role, _ world: World) async throws -> PortalPage {
        let path = path(role, world)
        guard let form else { return try await browser.get(path) }
        return try await browser.post(path, form(role, world))
    }
}

private func portalRows(_ rpc: [String: MatrixRow]) -> [PortalRow] {
    func like(_ name: String) -> MatrixRow {
        guard let row = rpc[name] else { fatalError("no RPC matrix row \(name)") }
        return row
    }
    let coachOnlyPage: (Role, MatrixOutcome?) -> MatrixOutcome? = { role, outcome in
        role.isCoach ? outcome : .failure(coachOnly)
    }
    let lifterOnlyPage: (Role, MatrixOutcome?) -> MatrixOutcome? = { role, outcome in
        role.isCoach ? .failure(lifterOnly) : outcome
    }
    return [
        PortalRow("GET /clients", like: like("coaching.clients"), path: { _, _ in "/clients" }),
        PortalRow(
            "GET /clients/:client", like: like("coaching.clientHistory"), path: { _, w in "/clients/\(w.client)" }),
        PortalRow(
            "GET /clients/:client/workouts/:workout", like: like("coaching.clientWorkout"),
            path: { _, w in "/clients/\(w.client)/workouts/\(w.workout)" }),
        PortalRow(
            "GET /clients/:client/workouts/:workout (another client's workout)",
            like: like("coaching.clientWorkout (another client's workout id)"),
            path: { _, w in "/clients/\(w.client)/workouts/\(w.foreignWorkout)" }),
        PortalRow(
            "GET /clients/:client/progress (squat)", like: like("coaching.clientProgress (squat)"),
            path: { _, w in "/clients/\(w.client)/progress?exercise=\(Catalog.squat)" }),
        PortalRow(
            "GET /clients/:client/progress (the owner's custom exercise)",
            like: like("coaching.clientProgress (the owner's custom exercise)"),
            path: { _, w in "/clients/\(w.client)/progress?exercise=\(w.exercise)" }),
        PortalRow(
            "GET /clients/:client/workouts/:workout/card.svg", like: like("coaching.clientWorkout"),
            path: { _, w in "/clients/\(w.client)/workouts/\(w.workout)/card.svg" }),
        PortalRow(
            "GET /clients/:client/workouts/:workout/card.png (another client's workout)",
            like: like("coaching.clientWorkout (another client's workout id)"),
            path: { _, w in "/clients/\(w.client)/workouts/\(w.foreignWorkout)/card.png" }),
        PortalRow(
            "GET /clients/:client/progress/chart.svg (the owner's custom exercise)",
            like: like("coaching.clientProgress (the owner's custom exercise)"),
            path: { _, w in "/clients/\(w.client)/progress/chart.svg?exercise=\(w.exercise)" }),
        PortalRow(
            "GET /export.json and /export.csv", like: like("training.transfer.export (own account, JSON and CSV)"),
            path: { _, _ in "/export.json" }),
        PortalRow(
            "GET /clients/:client/progress?find=zercher",
            like: like("coaching.clientExercises (zercher: finds the owner's custom exercise)"),
            path: { _, w in "/clients/\(w.client)/progress?find=zercher" }),
        PortalRow(
            "GET /clients/:client/statistics (with the client's achievements)", like: like("coaching.clientStatistics"),
            path: { _, w in "/clients/\(w.client)/statistics?period=month" },
            alsoLogs: [(.statistics, "GetClientAchievements")]),
        PortalRow(
            "GET /clients/:client/body", like: like("coaching.clientMeasurements"),
            path: { _, w in "/clients/\(w.client)/body" }),
        PortalRow("GET /clients/:client/end", coachPage: { _, w in "/clients/\(w.client)/end" }),
        PortalRow(
            "POST /clients/:client/workouts/:workout/comments", like: like("coaching.commentAsCoach"),
            path: { _, w in "/clients/\(w.client)/workouts/\(w.workout)/comments" },
            form: { _, _ in [("target", "1:0"), ("body", "elbows in")] }),
        PortalRow(
            "POST /clients/:client/workouts/:workout/comments/:comment/delete (the owner's comment)",
            like: like("coaching.deleteCommentAsCoach (the owner's own comment)"),
            path: { _, w in "/clients/\(w.client)/workouts/\(w.workout)/comments/\(w.comment)/delete" },
            form: { _, _ in [] }),
        PortalRow(
            "POST /clients/:client/assignments (a template of the caller's own)",
            like: like("coaching.assign (a template of the caller's own)"),
            path: { _, w in "/clients/\(w.client)/assignments" },
            form: { role, w in [("item", "template:\(w.ownTemplates[role]!)"), ("note", "")] }),
        PortalRow(
            "POST /clients/:client/assignments (the stranger's template)",
            like: like("coaching.assign (the stranger's template)"),
            path: { _, w in "/clients/\(w.client)/assignments" },
            form: { _, w in [("item", "template:\(w.foreignTemplate)"), ("note", "")] }),
        PortalRow(
            "GET /templates/:template (coach_full's, assigned to the owner)",
            like: like("training.templates.get (coach_full's template assigned to the owner)"),
            path: { _, w in "/templates/\(w.programTemplate)" }, adjust: coachOnlyPage),
        PortalRow(
            "GET /programs/:program (coach_full's, assigned to the owner)",
            like: like("coaching.program (coach_full's program assigned to the owner)"),
            path: { _, w in "/programs/\(w.program)" }, adjust: coachOnlyPage),
        PortalRow(
            "GET /coaches", like: like("coaching.links (own, closed too)"), path: { _, _ in "/coaches" },
            adjust: lifterOnlyPage),
        // The notice after a change names the coach from the caller's own links only.
        PortalRow(
            "GET /coaches?done=ended&coach= (the owner's coach)", like: like("coaching.links (own, closed too)"),
            path: { _, w in "/coaches?done=ended&coach=\(w.coach)" }, adjust: lifterOnlyPage),
        PortalRow("GET /access-log", like: like("coaching.accessLog (own)"), path: { _, _ in "/access-log" }),
        PortalRow(
            "GET /access-log?coach= (the owner's coach)", like: like("coaching.accessLog (own, for the owner's coach)"),
            path: { _, w in "/access-log?coach=\(w.coach)" }),
        PortalRow(
            "POST /coaches/:coach/scopes (the owner's coach, everything)",
            like: like("coaching.setScopes (the owner's coach)"), path: { _, w in "/coaches/\(w.coach)/scopes" },
            form: { _, _ in World.allScopes.map { ("scopes", $0) } }),
        // Discover: a coach publishes only their own plans; the portal's publishing is for coaches.
        PortalRow(
            "GET /templates/:template/publish (the owner's template)",
            like: like("discover.publish (the owner's own template)"),
            path: { _, w in "/templates/\(w.ownTemplates[.owner]!)/publish" }, adjust: coachOnlyPage),
        PortalRow(
            "GET /programs/:program/publish (coach_full's program)",
            like: like("discover.publish (coach_full's program, assigned to the owner)"),
            path: { _, w in "/programs/\(w.program)/publish" }, adjust: coachOnlyPage),
        PortalRow(
            "POST /templates/:template/publish (the owner's template)",
            like: like("discover.publish (the owner's own template)"),
            path: { _, w in "/templates/\(w.ownTemplates[.owner]!)/publish" },
            form: { _, _ in [("difficulty", "beginner"), ("categories", "strength")] }, adjust: coachOnlyPage),
        PortalRow(
            "POST /programs/:program/publish (coach_full's program)",
            like: like("discover.publish (coach_full's program, assigned to the owner)"),
            path: { _, w in "/programs/\(w.program)/publish" },
            form: { _, _ in [("difficulty", "advanced"), ("categories", "powerlifting")] }, adjust: coachOnlyPage),
        PortalRow(
            "POST /programs/:program/unpublish (coach_full's program)",
            path: { _, w in "/programs/\(w.program)/unpublish" },
            form: { _, _ in [] },
            expected: { role in
                role == .coachFull ? .success : role.isCoach ? publicationNotFound : .failure(coachOnly)
            }),
        PortalRow(
            "POST /profile/directory", like: like("discover.setListing (the caller into the coach directory)"),
            path: { _, _ in "/profile/directory" },
            form: { role, _ in [("listed", "on"), ("highlights", "\(role) coaches\nsince 2020")] }),
        // Listed coaches are in every lifter's "Find a coach" (names and usernames, never ids).
        PortalRow(
            "GET /coaches (with the coach directory)", like: like("coaching.links (own, closed too)"),
            path: { _, _ in "/coaches" }, adjust: lifterOnlyPage),
        // Last, as it leaves the stranger with a pending request to coach_full. Asking by username
        // names a coach, not anyone's data: a lifter linked to that coach is told so, others ask.
        PortalRow(
            "POST /coaches/request (coach_full's username)", path: { _, _ in "/coaches/request" },
            form: { _, _ in [("username", Role.coachFull.rawValue), ("scopes", "history")] },
            expected: { role in
                switch role {
                case _ where role.isCoach: .failure(lifterOnly)
                case .owner, .otherClient:
                    .failure(
                        .alreadyExists(
                            field: "username", reason: "you already have a pending or active link with this coach"))
                default: .success
                }
            },
            // A refusal shows the lifter's coaches page again, with their own coaches on it.
            visible: { $0.active.union([$0]) }),
    ]
}
