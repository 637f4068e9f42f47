import Foundation
import Hummingbird
import SpotterCore

/// The lifter's side of sharing: coaches and their requests, what each coach may see, ending a
/// link, and the access log of every coach read.
struct LifterRoutes {
    let coaching: CoachingService
    let discover: DiscoverService
    let pages: Pages

    func add(to router: Router<PortalContext>) {
        router.get("/coaches") { request, context in
            let query = request.uri.queryParameters
            return try await coachesPage(
                context, done: query.get("done").flatMap(Done.init), doneCoach: query.get("coach") ?? "")
        }
        router.post("/coaches/redeem") { _, context in try await addCoach(context, by: "code") }
        router.post("/coaches/request") { _, context in try await addCoach(context, by: "username") }
        router.post("/coaches/:coach/scopes") { _, context in
            let session = try lifter(context)
            let coach = try context.parameters.require("coach")
            let scopes = context.form.all("scopes")
            let done: Done
            switch context.form["answer"] {
            case "accept":
                _ = try await coaching.respond(session.principal, other: coach, accept: true, scopes: scopes)
                done = .accepted
            case "decline":
                _ = try await coaching.respond(session.principal, other: coach, accept: false, scopes: [])
                done = .declined
            default:
                _ = try await coaching.setScopes(session.principal, coach: coach, scopes: scopes)
                done = .saved
            }
            return Self.redirect(done, coach)
        }
        router.get("/coaches/:coach/end") { _, context in
            let session = try lifter(context)
            let coach = try context.parameters.require("coach")
            let links = try await coaching.links(session.principal, includeClosed: false)
            guard let link = links.first(where: { $0.coachID.description == coach.lowercased() }) else {
                throw SpotterError.notFound("coach not found")
            }
            // A coach's invitation is answered with Accept or Decline on the Coaches page.
            if link.status == .pending, link.requestedBy == .coach {
                return Response.redirect(to: "/coaches", type: .normal)
            }
            var page = EndLinkPage(
                name: link.coachName,
                consequence:
                    "\(link.coachName) will no longer see anything of yours from this moment, and the templates and programs \(link.coachName) assigned you are taken back. Your workouts stay yours; the access log keeps what \(link.coachName) looked at.",
                action: "/coaches/\(link.coachID)/end", back: "/coaches")
            if link.status == .pending {
                page.consequence =
                    "\(link.coachName) has not answered yet and has seen nothing of yours. Once you withdraw it, the request is gone; you can ask again later."
                (page.question, page.button) = ("Withdraw your request to", "Withdraw request")
            }
            return pages.render("end_link", title: page.button, session: session, current: "/coaches", page)
        }
        router.post("/coaches/:coach/end") { _, context in
            let session = try lifter(context)
            let coach = try context.parameters.require("coach")
            let ended = try await coaching.endLink(session.principal, other: coach)
            let done: Done =
                ended.status == .declined ? .declined : ended.respondedAt == nil ? .withdrawn : .ended
            return Self.redirect(done, coach)
        }
        router.get("/access-log") { request, context in try await accessLogPage(request, context) }
    }

    private func lifter(_ context: PortalContext) throws -> PortalSession {
        try context.signedIn(as: .lifter)
    }

    struct CoachesPage {
        struct Link {
            struct ScopeBox {
                var value: String
                var label: String
                var hint: String
                var checked: Bool
            }

            var id: String
            var name: String
            var state: String
            var action: String
            var pending: Bool
            /// The lifter's own request, not answered yet: withdrawn rather than ended.
            var asked: Bool
            var scopes: [ScopeBox]
        }

        /// A coach of the directory, with a form to ask them.
        struct DirectoryCoach {
            var name: String
            var username: String
            var bio: String?
            var specialities: String?
            var hasHighlights: Bool
            var highlights: [String]
            var followers: String
        }

        var links: [Link]
        /// Whether the lifter has a coach or a request open: the directory then says "no other coach".
        var hasLinks = false
        var hasDirectory: Bool
        var directory: [DirectoryCoach]
        /// What a new coach will see, for the invite-code and username forms: what was ticked.
        var newScopes: [Link.ScopeBox]
        var values: [String: String] = [:]
        var errors: [String: String] = [:]
        var notice: String?
    }

    /// The scopes a new coach gets unless the lifter ticks otherwise: their history and progress.
    static let defaultScopes: Set<Scope> = [.history, .progress]

    static func scopeBoxes(_ ticked: Set<Scope>) -> [CoachesPage.Link.ScopeBox] {
        Scope.allCases.map { scope in
            let label = Format.scopeLabel(scope)
            return .init(value: scope.rawValue, label: label.label, hint: label.hint, checked: ticked.contains(scope))
        }
    }

    /// A coach added by invite code (active at once) or asked by username (once they accept). A
    /// refusal stays on the page, by its field, with what was typed and ticked.
    private func addCoach(_ context: PortalContext, by field: String) async throws -> Response {
        let session = try lifter(context)
        let typed = context.form.text(field)
        let scopes = context.form.all("scopes")
        do {
            if field == "code" {
                let link = try await coaching.redeemInvite(session.principal, code: typed, scopes: scopes)
                return Self.redirect(.linked, link.coachID.description)
            } else {
                let link = try await coaching.requestCoach(session.principal, username: typed, scopes: scopes)
                return Self.redirect(.asked, link.coachID.description)
            }
        } catch let error as SpotterError {
            let message: String
            let status: HTTPResponse.Status
            switch error {
            case .notFound:
                message =
                    field == "code"
                    ? "No open invite has this code: it may be used or expired. Ask your coach for a new one."
                    : "No coach has this username."
                status = .notFound
            case .invalidArgument(let violations):
                message = violations.map { SessionRoutes.sentence($0) }.joined(separator: " ")
                status = .badRequest
            case .alreadyExists(_, let reason), .failedPrecondition(let reason):
                // These reasons are sentences of their own ("you already have a pending or active
                // link with this coach"), not a field's.
                message = reason.sentenceCased + (reason.hasSuffix(".") ? "" : ".")
                status = .conflict
            default:
                throw error
            }
            let ticked = Set(scopes.compactMap(Scope.init(rawValue:)))
            return try await coachesPage(
                context, newScopes: ticked, values: [field: typed], errors: [field: message], status: status)
        }
    }

    /// What the lifter just did on the coaches page, said at its top after the redirect.
    enum Done: String {
        case linked, asked, accepted, declined, saved, ended, withdrawn
    }

    /// Back to the coaches page, which says what was done with which coach.
    static func redirect(_ done: Done, _ coach: String) -> Response {
        .redirect(to: "/coaches?done=\(done.rawValue)&coach=\(Form.encode(coach))", type: .normal)
    }

    /// The sentence for `done` with the coach's link as it is now (`nil` once it is closed).
    static func notice(_ done: Done, _ link: CoachLink?, _ closedName: String?) -> String? {
        func sees(_ link: CoachLink) -> String {
            link.scopes.isEmpty ? "nothing of yours" : Format.scopes(link.scopes)
        }
        switch (done, link) {
        case (.linked, let link?), (.accepted, let link?):
            return "\(link.coachName) is now your coach and sees \(sees(link))."
        case (.asked, let link?):
            return "\(link.coachName) has been asked. Once they accept, they see \(sees(link))."
        case (.saved, let link?) where link.scopes.contains(.details) && !link.scopes.contains(.history):
            return
                "Saved: \(link.coachName) now sees \(sees(link)). Details are of the workouts History shows: tick History too for \(link.coachName) to see them."
        case (.saved, let link?):
            return "Saved: \(link.coachName) now sees \(sees(link))."
        case (.declined, _):
            return closedName.map { "You declined \($0)'s request; they see nothing of yours." }
        case (.ended, _):
            return closedName.map { "Coaching with \($0) has ended; they see nothing of yours from now on." }
        case (.withdrawn, _):
            return closedName.map { "Your request to \($0) is withdrawn." }
        default:
            return nil
        }
    }

    private func coachesPage(
        _ context: PortalContext, newScopes: Set<Scope> = defaultScopes, values: [String: String] = [:],
        errors: [String: String] = [:], status: HTTPResponse.Status = .ok, done: Done? = nil, doneCoach: String = ""
    ) async throws -> Response {
        let session = try lifter(context)
        let format = Format(session.profile)
        let links = try await coaching.links(session.principal, includeClosed: false)
        var notice: String?
        if let done {
            let coach = doneCoach.lowercased()
            let open = links.first { $0.coachID.description == coach }
            // A declined or ended link is among the closed ones (any of them names the coach).
            let closed =
                open == nil
                ? try await coaching.links(session.principal, includeClosed: true).first {
                    $0.coachID.description == coach && $0.status != .active && $0.status != .pending
                }?.coachName : nil
            notice = Self.notice(done, open, closed)
        }
        // The directory's first page, less the coaches the lifter already has or asked.
        let linked = Set(links.map(\.coachID))
        let directory = try await discover.directory(
            session.principal, speciality: "", text: "", pageSize: 50, pageToken: ""
        ).items.filter { !linked.contains($0.tenantID) }.map { coach in
            CoachesPage.DirectoryCoach(
                name: coach.displayName, username: coach.username, bio: coach.bio.isEmpty ? nil : coach.bio,
                specialities: coach.specialities.isEmpty ? nil : coach.specialities.joined(separator: " · "),
                hasHighlights: !coach.highlights.isEmpty, highlights: coach.highlights,
                followers: coach.followers == 0
                    ? "No followers yet."
                    : "\(Format.count(coach.followers, "follower")) of their published plans.")
        }
        var page = CoachesPage(
            links: links.map { link in
                let answer = link.status == .pending && link.requestedBy == .coach
                let state =
                    switch (link.status, link.requestedBy) {
                    case (.pending, .coach):
                        "Asks to coach you since \(format.day(link.createdAt)). Tick what to share, then accept."
                    case (.pending, _): "You asked on \(format.day(link.createdAt)); waiting for the coach."
                    default:
                        "Your coach since \(format.day(link.since))."
                            + (link.paused
                                ? " Paused: \(link.coachName) cannot see your data for now, until their plan covers you again. Nothing of yours is lost."
                                : "")
                    }
                return CoachesPage.Link(
                    id: link.coachID.description, name: link.coachName, state: state,
                    action: "/coaches/\(link.coachID)/scopes", pending: answer,
                    asked: link.status == .pending && link.requestedBy == .lifter,
                    // A coach's invitation asks for nothing yet: the boxes start as a new coach's do.
                    scopes: Self.scopeBoxes(answer && link.scopes.isEmpty ? Self.defaultScopes : link.scopes))
            },
            hasDirectory: !directory.isEmpty, directory: directory,
            newScopes: Self.scopeBoxes(newScopes), values: values, errors: errors, notice: notice)
        page.hasLinks = !page.links.isEmpty
        return pages.render(
            "coaches", title: "Your coaches", session: session, status: status, current: "/coaches", page)
    }

    struct AccessLogPage {
        struct Entry {
            var when: String
            var coach: String
            var what: String
        }

        var coachName: String?
        var hasEntries: Bool
        var entries: [Entry]
        var older: String?
    }

    private func accessLogPage(_ request: Request, _ context: PortalContext) async throws -> Response {
        let session = try lifter(context)
        let format = Format(session.profile)
        let coach = request.uri.queryParameters.get("coach") ?? ""
        let log = try await coaching.accessLog(
            session.principal, coach: coach, pageSize: 50, pageToken: request.uri.queryParameters.get("page") ?? "")
        var coachName: String?
        if !coach.isEmpty {
            let links = try await coaching.links(session.principal, includeClosed: true)
            coachName = links.first { $0.coachID.description == coach.lowercased() }?.coachName ?? "one coach"
        }
        let page = AccessLogPage(
            coachName: coachName, hasEntries: !log.items.isEmpty,
            entries: Self.folded(log.items, format),
            older: log.nextToken.isEmpty
                ? nil
                : "/access-log?page=\(Form.encode(log.nextToken))"
                    + (coach.isEmpty ? "" : "&coach=\(Form.encode(coach))"))
        return pages.render("access_log", title: "Access log", session: session, current: "/access-log", page)
    }

    /// The log's rows as lines, newest first. A coach reading the same thing again and again (a
    /// workout page reloaded around each comment) is one line with how many times, within half an
    /// hour of the first of them and on one day; each read is still stored as a row.
    static func folded(_ entries: [AccessLogEntry], _ format: Format) -> [AccessLogPage.Entry] {
        var runs: [(newest: Date, oldest: Date, coach: String, what: String, count: Int, method: String)] = []
        for entry in entries {
            let coach = entry.coachName.isEmpty ? "A deleted account" : entry.coachName
            let what = what(entry, format)
            if let last = runs.last, last.coach == coach, last.what == what,
                last.newest.timeIntervalSince(entry.accessedAt) <= 30 * 60,
                format.day(last.newest) == format.day(entry.accessedAt)
            {
                // One page that reads twice at once (the statistics and the awards beside them:
                // two calls) is one look; the same call again is another.
                if entry.method == last.method || last.oldest.timeIntervalSince(entry.accessedAt) > 2 {
                    runs[runs.count - 1].count += 1
                }
                runs[runs.count - 1].oldest = entry.accessedAt
                runs[runs.count - 1].method = entry.method
            } else {
                runs.append((entry.accessedAt, entry.accessedAt, coach, what, 1, entry.method))
            }
        }
        return runs.map { run in
            let clocks = (format.clock(run.oldest), format.clock(run.newest))
            return AccessLogPage.Entry(
                when: run.count == 1 || clocks.0 == clocks.1
                    ? format.moment(run.newest) : "\(format.day(run.newest)), \(clocks.0)–\(clocks.1)",
                coach: run.coach, what: run.count == 1 ? run.what : "\(run.what) (\(run.count) times)")
        }
    }

    /// What the coach read, in the lifter's words: `your workout “Squat day” of Mon 23 Nov 2026`.
    static func what(_ entry: AccessLogEntry, _ format: Format) -> String {
        // A coach following a session as it happens reads it in detail, but no workout yet.
        if entry.method == "WatchClientSession" { return "your guided session, as it happened" }
        // A reply of the lifter's e-mailed to a coach who commented (0065_notification_withdrawal.sql).
        if entry.method == "ReplyEmail" {
            if let name = entry.workout?.name { return "your words under “\(name)”, by e-mail" }
            return "your words under a workout, by e-mail"
        }
        return switch (entry.kind, entry.workout) {
        case (.details, let workout?):
            if let name = workout.name, let startedAt = workout.startedAt {
                "your workout “\(name)” of \(format.day(startedAt))"
            } else {
                "a workout you have since deleted"
            }
        case (let kind, _): what(kind)
        }
    }

    static func what(_ kind: AccessKind) -> String {
        switch kind {
        case .overview: "your client overview"
        case .history: "your workout history"
        case .details: "a workout in detail"
        case .progress: "your progress"
        case .statistics: "your statistics"
        case .body: "your body measurements"
        }
    }
}
