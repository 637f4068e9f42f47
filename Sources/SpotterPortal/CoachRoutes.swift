import Foundation
import Hummingbird
import SpotterCore

/// The coach's pages: clients, requests and invites; a client's history, workouts with comments,
/// progress and statistics; ending a link. Every read goes through `CoachingService`, which checks
/// the link and scope and writes the client's access log exactly as the RPCs do.
struct CoachRoutes {
    let coaching: CoachingService
    let training: TrainingServices
    let share: ShareService
    let pages: Pages
    /// The portal's address, for the invite text a coach sends on.
    let publicURL: String
    let now: @Sendable () -> Date

    func add(to router: Router<PortalContext>) {
        router.get("/clients") { request, context in
            let session = try coach(context)
            let shown = NewInviteCookie(request.cookies[NewInviteCookie.name]?.value)
            var response = try await clientsPage(request, session, newInvite: shown)
            if shown != nil { response.setCookie(NewInviteCookie.cleared) }
            // The number of days typed is kept for the next visit; the default needs no cookie.
            if let typed = InactiveDaysCookie.days(request.uri.queryParameters.get("inactive")) {
                response.setCookie(
                    typed == CoachingService.defaultInactiveDays
                        ? InactiveDaysCookie.cleared : InactiveDaysCookie.cookie(typed))
            }
            return response
        }
        // The new code is shown by the page the browser is sent to, once, so that reloading that
        // page does not make another code.
        router.post("/invites") { request, context in
            let session = try coach(context)
            let note = context.form.text("note")
            do {
                let invite = try await coaching.createInvite(session.principal, note: note, validDays: 0)
                var response = Response.redirect(to: "/clients#new-invite", type: .normal)
                if let code = invite.code {
                    response.setCookie(NewInviteCookie(id: invite.id, code: code).cookie)
                }
                return response
            } catch SpotterError.invalidArgument(let violations) {
                return try await clientsPage(
                    request, session, newInvite: nil, inviteNote: note,
                    inviteError: SessionRoutes.fieldErrors(violations, [:])["note"])
            } catch SpotterError.failedPrecondition(let reason) {
                // A full roster: said beside the form, with the tier that takes more.
                return try await clientsPage(
                    request, session, newInvite: nil, inviteNote: note,
                    inviteRefusal: reason.prefix(1).uppercased() + reason.dropFirst() + ".")
            }
        }
        // An invitation by username: the lifter accepts (choosing what to share) or declines.
        router.post("/clients/invite") { request, context in
            let session = try coach(context)
            // "@ada", as the directory writes usernames, is ada.
            var username = context.form.text("username").trimmingWhitespaces()
            if username.hasPrefix("@") { username.removeFirst() }
            func refused(_ error: String) async throws -> Response {
                try await clientsPage(request, session, newInvite: nil, invitation: (username, error))
            }
            do {
                let link = try await coaching.inviteClient(session.principal, username: username)
                return Response.redirect(to: "/clients?invited=\(link.lifterID)", type: .normal)
            } catch SpotterError.invalidArgument(let violations) {
                return try await refused(violations.map { SessionRoutes.sentence($0) }.joined(separator: " "))
            } catch SpotterError.notFound {
                return try await refused("No lifter has the username “\(username)”.")
            } catch SpotterError.alreadyExists(_, let reason) {
                return try await refused("You \(reason.hasPrefix("you ") ? String(reason.dropFirst(4)) : reason).")
            } catch SpotterError.failedPrecondition(let reason) {
                return try await refused(reason.prefix(1).uppercased() + reason.dropFirst() + ".")
            }
        }
        router.post("/invites/:invite/revoke") { _, context in
            let session = try coach(context)
            try await coaching.revokeInvite(session.principal, id: try context.parameters.require("invite"))
            return Response.redirect(to: "/clients", type: .normal)
        }
        router.post("/clients/:client/respond") { request, context in
            let session = try coach(context)
            let accept = context.form["answer"] == "accept"
            do {
                _ = try await coaching.respond(
                    session.principal, other: try context.parameters.require("client"), accept: accept, scopes: [])
            } catch SpotterError.failedPrecondition(let message) {
                // A full roster: said beside the requests, with where the tier is shown.
                return try await clientsPage(
                    request, session, newInvite: nil,
                    requestError: PortalMiddleware.sentence(message) + " Your tier is on your Profile page.")
            }
            // The list then says what was done (`clientsPage`'s notice).
            let client = try context.parameters.require("client")
            return Response.redirect(
                to: accept ? "/clients?answered=accepted&client=\(Form.encode(client))" : "/clients?answered=declined",
                type: .normal)
        }
        router.get("/clients/:client") { request, context in try await historyPage(request, context) }
        router.post("/clients/:client/assignments") { request, context in
            let session = try coach(context)
            let client = try context.parameters.require("client")
            let item = context.form.text("item")
            let note = context.form.text("note")
            let parts = item.split(separator: ":", maxSplits: 1).map(String.init)
            guard parts.count == 2, ["template", "program"].contains(parts[0]) else {
                throw PortalError.badRequest("Pick a template or a program to assign.")
            }
            let assignment: Assignment
            do {
                assignment = try await coaching.assign(
                    session.principal, client: client, templateID: parts[0] == "template" ? parts[1] : "",
                    programID: parts[0] == "program" ? parts[1] : "", note: note)
            } catch SpotterError.invalidArgument(let violations) {
                let error = violations.map { SessionRoutes.sentence($0) }.joined(separator: " ")
                return try await historyPage(request, context, assigning: (item, note, error))
            } catch SpotterError.alreadyExists(_, let reason) {
                // Beside the form, like any other refusal, not on a page of its own.
                return try await historyPage(request, context, assigning: (item, note, "That \(reason)."))
            }
            // The page then says what was done (`historyPage`'s plan notice).
            return Response.redirect(
                to: "/clients/\(client)?assigned=\(assignment.id.lowercasedString)#plans", type: .normal)
        }
        router.get("/clients/:client/assignments/:assignment/delete") { _, context in
            let session = try coach(context)
            let link = try await activeLink(session, try context.parameters.require("client"))
            let assignment = try await clientAssignment(session, link, try context.parameters.require("assignment"))
            let name = link.lifterName
            let consequence =
                switch assignment.item {
                case .template:
                    "\(name) no longer sees the template; workouts logged from it stay in their history."
                case .program:
                    "\(name) no longer sees the program, and stops following it, if they do; assigned again, they start it anew. Workouts logged from it stay in their history."
                }
            return pages.render(
                "end_link", title: "Unassign \(assignment.name)", session: session, current: "/clients",
                EndLinkPage(
                    name: "\(assignment.name) from \(name)", consequence: consequence,
                    action: "/clients/\(link.lifterID)/assignments/\(assignment.id.lowercasedString)/delete",
                    back: "/clients/\(link.lifterID)#plans", question: "Unassign", button: "Unassign"))
        }
        router.post("/clients/:client/assignments/:assignment/delete") { _, context in
            let session = try coach(context)
            let client = try context.parameters.require("client")
            let link = try await activeLink(session, client)
            let assignment = try await clientAssignment(session, link, try context.parameters.require("assignment"))
            try await coaching.unassign(session.principal, id: assignment.id.lowercasedString)
            return Response.redirect(to: "/clients/\(client)?unassigned=1#plans", type: .normal)
        }
        router.get("/clients/:client/workouts/:workout") { _, context in
            try await workoutPage(context, comment: nil)
        }
        router.post("/clients/:client/workouts/:workout/comments") { _, context in
            let session = try coach(context)
            let client = try context.parameters.require("client")
            let workoutID = try context.parameters.require("workout")
            let text = context.form["body"] ?? ""
            let target = context.form.text("target")
            let indices = target.split(separator: ":").compactMap { Int($0) }
            guard target.isEmpty || indices.count == 2 else { throw PortalError.badRequest("Pick what to comment on.") }
            do {
                _ = try await coaching.commentAsCoach(
                    session.principal, client: client, workoutID: workoutID, exerciseIndex: indices.first,
                    setIndex: indices.last, body: text)
            } catch SpotterError.invalidArgument(let violations) {
                let error = violations.map { SessionRoutes.sentence($0) }.joined(separator: " ")
                return try await workoutPage(context, comment: (text, target, error))
            }
            return Response.redirect(to: "/clients/\(client)/workouts/\(workoutID)#comments", type: .normal)
        }
        router.post("/clients/:client/workouts/:workout/comments/:comment/delete") { _, context in
            let session = try coach(context)
            let client = try context.parameters.require("client")
            try await coaching.deleteCommentAsCoach(
                session.principal, client: client, id: try context.parameters.require("comment"))
            let workoutID = try context.parameters.require("workout")
            return Response.redirect(to: "/clients/\(client)/workouts/\(workoutID)#comments", type: .normal)
        }
        for format in ImageFormat.allCases {
            router.get("/clients/:client/workouts/:workout/card.\(format.rawValue)") { _, context in
                try await workoutCard(context, format)
            }
            router.get("/clients/:client/progress/chart.\(format.rawValue)") { request, context in
                try await progressChart(request, context, format)
            }
        }
        router.get("/clients/:client/progress") { request, context in try await progressPage(request, context) }
        router.get("/clients/:client/statistics") { request, context in try await statisticsPage(request, context) }
        router.get("/clients/:client/body") { _, context in try await bodyPage(context) }
        router.get("/clients/:client/end") { _, context in
            let session = try coach(context)
            let link = try await activeLink(session, try context.parameters.require("client"))
            return pages.render(
                "end_link", title: "End coaching", session: session, current: "/clients",
                EndLinkPage(
                    name: link.lifterName,
                    consequence:
                        "You will no longer see anything of \(link.lifterName)'s, and programs you assigned stop. \(link.lifterName) keeps all their data.",
                    // The client list: a paused client's own page is closed.
                    action: "/clients/\(link.lifterID)/end", back: "/clients"))
        }
        router.post("/clients/:client/end") { _, context in
            let session = try coach(context)
            let client = try context.parameters.require("client")
            _ = try await coaching.endLink(session.principal, other: client)
            return Response.redirect(to: "/clients?ended=\(Form.encode(client))", type: .normal)
        }
    }

    private func coach(_ context: PortalContext) throws -> PortalSession {
        try context.signedIn(as: .coach)
    }

    /// The coach's active link to `client`; `notFound` for an unknown id, an ended link or another
    /// coach's client alike.
    private func activeLink(_ session: PortalSession, _ client: String) async throws -> CoachLink {
        try await coaching.activeClientLink(session.principal, client: try Self.clientID(client))
    }

    /// A client id from a page's address; `notFound` for one that is no id, as for any other.
    private static func clientID(_ text: String) throws -> TenantID {
        guard let id = UUID(hexadecimal: text) else { throw SpotterError.notFound("client not found") }
        return TenantID(rawValue: id)
    }

    /// The coach's assignment `id` to the client of `link`; `notFound` for another client's too.
    private func clientAssignment(_ session: PortalSession, _ link: CoachLink, _ id: String) async throws
        -> Assignment
    {
        guard
            let assignment = try await coaching.assignments(session.principal, client: link.lifterID.description)
                .first(where: { $0.id.lowercasedString == id.lowercased() })
        else { throw SpotterError.notFound("assignment not found") }
        return assignment
    }

    /// Times of a client's workouts in the client's time zone (the days their progress and
    /// statistics count them on), weights in the coach's unit.
    private func clientFormat(_ session: PortalSession, _ link: CoachLink) async throws -> Format {
        Format(
            timeZone: try await coaching.clientTimeZone(session.principal, client: link.lifterID),
            unit: session.profile.unit)
    }

    // MARK: - Clients

    struct ClientsPage {
        struct Column {
            var label: String
            var href: String?
            var current: Bool
        }

        struct Row {
            var id: String
            var name: String
            var lastWorkout: String
            var thisWeek: String
            var streak: String
            var inactive: Bool
            var newRecord: String?
            /// Why the client's data is closed: past the tier's number of clients.
            var paused: String?
        }

        struct Request {
            var id: String
            var name: String
            var scopes: String
            var since: String
        }

        struct Invite {
            var id: String
            var note: String
            var created: String
            var state: String
            var open: Bool
        }

        struct NewInvite {
            var id: String
            var note: String
            var code: String
            var expires: String
            var shareText: String
        }

        var query: String
        var sort: String
        var inactiveDays: Int
        /// The flag of a client without a workout in that many days.
        var inactiveFlag: String
        var columns: [Column]
        var rows: [Row]
        var hasClients: Bool
        var emptyText: String
        var requests: [Request]
        var waiting: [Request]
        var invites: [Invite]
        var newInvite: NewInvite?
        var inviteNote: String
        var inviteError: String?
        /// What an answer to a request did: the client accepted (named only when they are one), or
        /// a request declined.
        var notice: String? = nil
        /// Why no code can be made now (a full roster): the form's, not the note's.
        var inviteRefusal: String?
        var requestError: String?
        /// The invitation by username: what was typed, and why it was refused.
        var inviteUsername = ""
        var inviteUsernameError: String?
    }

    private func clientsPage(
        _ request: Request, _ session: PortalSession, newInvite shown: NewInviteCookie?, inviteNote: String = "",
        inviteError: String? = nil, inviteRefusal: String? = nil, requestError: String? = nil,
        invitation: (username: String, error: String)? = nil
    ) async throws -> Response {
        let format = Format(session.profile)
        let at = now()
        let query = (request.uri.queryParameters.get("q") ?? "").trimmingWhitespaces()
        let asked = request.uri.queryParameters.get("sort")
        let sort: String = ["name", "last", "week", "streak"].first { $0 == asked } ?? "name"
        // Flagged as inactive after this many days without a workout, unless the coach says (now,
        // or on an earlier visit).
        let inactiveDays =
            InactiveDaysCookie.days(request.uri.queryParameters.get("inactive"))
            ?? InactiveDaysCookie.days(request.cookies[InactiveDaysCookie.name]?.value)
            ?? CoachingService.defaultInactiveDays
        async let summaries = coaching.clients(session.principal, inactiveDays: inactiveDays)
        async let links = coaching.links(session.principal, includeClosed: false)
        async let invites = coaching.invites(session.principal)
        // Case and accents aside: "chloe" finds Chloé.
        var clients = try await summaries.filter {
            query.isEmpty
                || $0.link.lifterName.range(of: query, options: [.caseInsensitive, .diacriticInsensitive]) != nil
        }
        let byName: (ClientSummary, ClientSummary) -> Bool = {
            $0.link.lifterName.localizedCaseInsensitiveCompare($1.link.lifterName) == .orderedAscending
        }
        switch sort {
        case "last":
            clients.sort {
                ($0.lastWorkoutAt ?? .distantPast, $1.link.lifterName) > (
                    $1.lastWorkoutAt ?? .distantPast, $0.link.lifterName
                )
            }
        case "streak":
            clients.sort {
                ($0.streakWeeks ?? -1) != ($1.streakWeeks ?? -1)
                    ? ($0.streakWeeks ?? -1) > ($1.streakWeeks ?? -1) : byName($0, $1)
            }
        case "week":
            clients.sort {
                ($0.workoutsThisWeek ?? -1) != ($1.workoutsThisWeek ?? -1)
                    ? ($0.workoutsThisWeek ?? -1) > ($1.workoutsThisWeek ?? -1) : byName($0, $1)
            }
        default: clients.sort(by: byName)
        }
        let search =
            (query.isEmpty ? "" : "&q=" + Form.encode(query))
            + (inactiveDays == CoachingService.defaultInactiveDays ? "" : "&inactive=\(inactiveDays)")
        let columns = [
            ("Client", "name"), ("Last workout", "last"), ("This week", "week"), ("Streak", "streak"), ("Flags", ""),
        ].map {
            ClientsPage.Column(
                label: $0.0, href: $0.1.isEmpty ? nil : "/clients?sort=\($0.1)\(search)", current: $0.1 == sort)
        }
        let tier = session.profile.tier.effective(at: at)
        let rows = clients.map { client in
            let paused =
                "beyond the \(Format.count(CoachEntitlements.clientLimit(tier), "client")) the \(CoachEntitlements.tierName(tier)) tier covers"
            return ClientsPage.Row(
                id: client.link.lifterID.description, name: client.link.lifterName,
                lastWorkout: client.beyondTierLimit
                    ? "–"
                    : client.workoutsThisWeek == nil
                        ? "not shared" : client.lastWorkoutAt.map { format.relative($0, now: at) } ?? "none yet",
                thisWeek: client.beyondTierLimit
                    ? "–"
                    : client.workoutsThisWeek.map {
                        Self.thisWeek(
                            workouts: $0, planned: client.plannedThisWeek, plannedDone: client.plannedDoneThisWeek)
                    }
                        ?? "not shared",
                streak: client.beyondTierLimit ? "–" : client.streakWeeks.map { Self.streakWeeks($0) } ?? "not shared",
                inactive: client.inactive, newRecord: client.newRecordExercise,
                paused: client.beyondTierLimit ? paused : nil)
        }
        let open = try await links.filter { $0.status == .pending }
        let describe = { (link: CoachLink) in
            ClientsPage.Request(
                id: link.lifterID.description, name: link.lifterName, scopes: Format.scopes(link.scopes),
                since: format.day(link.createdAt))
        }
        let allInvites = try await invites
        // Who used a code, while they are a client.
        let names = Dictionary(try await links.map { ($0.lifterID, $0.lifterName) }) { first, _ in first }
        // The code just made, while it is still open: the cookie names it, this coach's list has it.
        let newInvite = shown.flatMap { shown in
            allInvites.first { $0.id == shown.id && $0.usedAt == nil && $0.expiresAt > at }.map { invite in
                var invite = invite
                invite.code = shown.code
                return invite
            }
        }
        var page = ClientsPage(
            query: query, sort: sort, inactiveDays: inactiveDays,
            inactiveFlag: "no workout in \(Format.count(inactiveDays, "day"))", columns: columns, rows: rows,
            hasClients: !rows.isEmpty,
            emptyText: query.isEmpty ? "No clients yet. Create an invite code below." : "No client matches “\(query)”.",
            requests: open.filter { $0.requestedBy == .lifter }.map(describe),
            waiting: open.filter { $0.requestedBy == .coach }.map(describe),
            // Open invites, and the five last used or expired in the past two weeks: a coach with
            // 200 clients has 200 used codes, which say nothing any more.
            invites: Self.shownInvites(allInvites, at: at, except: newInvite?.id).map { invite in
                let state =
                    invite.usedAt.map { at in
                        invite.usedBy.flatMap { names[$0] }.map { "used by \($0) on \(format.day(at))" }
                            ?? "used \(format.day(at))"
                    }
                    ?? (invite.expiresAt <= at ? "expired" : "open until \(format.day(invite.expiresAt))")
                return ClientsPage.Invite(
                    id: invite.id.uuidString, note: invite.note, created: format.day(invite.createdAt), state: state,
                    open: invite.usedAt == nil && invite.expiresAt > at)
            },
            newInvite: newInvite.flatMap { invite in
                invite.code.map { code in
                    ClientsPage.NewInvite(
                        id: invite.id.uuidString, note: invite.note, code: code, expires: format.day(invite.expiresAt),
                        shareText:
                            "Train with me on Spotter: in the app, Coaching → Redeem an invite; on the web portal (\(publicURL)/coaches#add), Add a coach. Code \(code), valid until \(format.day(invite.expiresAt))."
                    )
                }
            },
            inviteNote: inviteNote, inviteError: inviteError, inviteRefusal: inviteRefusal, requestError: requestError)
        page.inviteUsername = invitation?.username ?? ""
        page.inviteUsernameError = invitation?.error
        let status: HTTPResponse.Status =
            inviteError != nil || invitation != nil
            ? .badRequest : inviteRefusal != nil || requestError != nil ? .conflict : .ok
        let parameters = request.uri.queryParameters
        switch parameters.get("answered") {
        case "accepted":
            // A made-up address names no one: only a client of this coach's, active now.
            let client = parameters.get("client")?.lowercased()
            page.notice = try await links.first { $0.status == .active && $0.lifterID.description == client }
                .map { "\($0.lifterName) is now your client." }
        case "declined": page.notice = "The request is declined."
        default: break
        }
        // After inviting by username: named only while that invitation waits.
        if let invited = parameters.get("invited")?.lowercased() {
            page.notice = try await links.first {
                $0.status == .pending && $0.requestedBy == .coach && $0.lifterID.description == invited
            }.map { "\($0.lifterName) is invited: they answer in the app or on their Coaches page." }
        }
        // After ending a coaching: named only when this coach's link with that lifter has ended.
        if let ended = parameters.get("ended")?.lowercased() {
            let closed = try await coaching.links(session.principal, includeClosed: true).first {
                $0.status == .ended && $0.lifterID.description == ended
            }
            page.notice = closed.map {
                "Coaching with \($0.lifterName) has ended: what you assigned is taken back, and \($0.lifterName) keeps their data."
            }
        }
        return pages.render(
            "clients", title: "Clients", session: session, status: status,
            current: "/clients", page)
    }

    static func shownInvites(_ invites: [CoachInvite], at: Date, except: UUID?) -> [CoachInvite] {
        let closedAt = { (invite: CoachInvite) in min(invite.usedAt ?? .distantFuture, invite.expiresAt) }
        let open = invites.filter { closedAt($0) > at }
        let closed = invites.filter { closedAt($0) <= at && closedAt($0) > at.addingTimeInterval(-14 * 86_400) }
            .sorted { closedAt($0) > closedAt($1) }.prefix(5)
        return (open + closed).filter { $0.id != except }
    }

    // MARK: - One client

    struct ClientHeader {
        var id: String
        var name: String
        var since: String
        var scopes: String
        /// Said when the page's times are in the client's time zone and it is not the coach's.
        var zone: String?

        init(_ link: CoachLink, _ format: Format, viewer: String? = nil) {
            id = link.lifterID.description
            name = link.lifterName
            since = format.day(link.since)
            scopes = Format.scopes(link.scopes)
            if let viewer, (TimeZone(identifier: viewer) ?? .gmt) != format.timeZone {
                zone = "Times are \(link.lifterName)'s, in \(format.timeZone.identifier)."
            }
        }
    }

    struct HistoryPage {
        struct Entry {
            var href: String?
            var date: String
            var name: String
            /// `1 h 05 min · 2 exercises · 6 sets · 3,300 kg volume`: no duration for a workout
            /// logged without one.
            var line: String
        }

        var client: ClientHeader
        var tab = ["history": true]
        var notShared: String?
        var query = ""
        /// Why the search was refused (too long), said under it.
        var searchError: String?
        var workouts: [Entry] = []
        var detailsHidden: String?
        var older: String?
        var assignments: [Assigned] = []
        var hasPlans = false
        var plans: [Choice] = []
        var assignNote = ""
        var assignError: String?
        /// What the last assign or unassign did.
        var plansNotice: String?

        struct Assigned {
            var id: String
            var name: String
            var kind: String
            var version: Int64
            var since: String
            var note: String
        }

        struct Choice {
            var value: String
            var label: String
            var selected: Bool
        }
    }

    private func historyPage(
        _ request: Request, _ context: PortalContext, assigning: (item: String, note: String, error: String)? = nil
    ) async throws -> Response {
        let session = try coach(context)
        let link = try await activeLink(session, try context.parameters.require("client"))
        let format = try await clientFormat(session, link)
        let client = ClientHeader(link, format, viewer: session.profile.timeZone)
        var page = HistoryPage(client: client)
        page.query = request.uri.queryParameters.get("q") ?? ""
        do {
            let history = try await coaching.clientHistory(
                session.principal, client: client.id, from: nil, to: nil, text: page.query, pageSize: 20,
                pageToken: request.uri.queryParameters.get("page") ?? "")
            let details = link.scopes.contains(.details)
            page.workouts = history.items.map { entry in
                HistoryPage.Entry(
                    // Without the details scope there is no workout page to open: no link.
                    href: details ? "/clients/\(client.id)/workouts/\(entry.id)" : nil,
                    date: format.day(entry.startedAt), name: entry.name,
                    line: [
                        entry.durationSeconds > 0 ? format.duration(entry.durationSeconds) : nil,
                        entry.summary.map { Self.summary($0, format) },
                    ].compactMap(\.self).joined(separator: " · "))
            }
            if !details { page.detailsHidden = Self.notShared(link, .details) }
            if !history.nextToken.isEmpty {
                page.older =
                    "/clients/\(client.id)?page=\(Form.encode(history.nextToken))"
                    + (page.query.isEmpty ? "" : "&q=\(Form.encode(page.query))")
            }
        } catch SpotterError.scopeNotGranted {
            page.notShared = Self.notShared(link, .history)
        } catch SpotterError.invalidArgument(let violations) {
            page.searchError = violations.map { SessionRoutes.sentence($0) }.joined(separator: " ")
        }
        async let assignments = coaching.assignments(session.principal, client: client.id)
        async let templates = training.templates.list(
            session.principal, includeArchived: false, pageSize: 100, pageToken: "")
        async let programs = coaching.programs(session.principal)
        page.assignments = try await assignments.map { assignment in
            let kind = if case .program = assignment.item { "program" } else { "template" }
            return HistoryPage.Assigned(
                id: assignment.id.lowercasedString, name: assignment.name, kind: kind, version: assignment.version,
                // The coach's own act, dated in the coach's zone as the Programs and Templates
                // lists date it (the client's workouts above are in the client's).
                since: Format(session.profile).day(assignment.createdAt), note: assignment.note)
        }
        let choices =
            try await programs.map { ("program:\($0.id)", "Program: \($0.content.name)") }
            + templates.items.map { ("template:\($0.id)", "Template: \($0.content.name)") }
        page.plans = choices.map { .init(value: $0.0, label: $0.1, selected: $0.0 == assigning?.item) }
        page.plansNotice = Self.plansNotice(request, assigned: page.assignments, client: link.lifterName)
        page.hasPlans = !choices.isEmpty
        page.assignNote = assigning?.note ?? ""
        page.assignError = assigning?.error
        return pages.render(
            "client", title: link.lifterName, session: session, status: assigning == nil ? .ok : .badRequest,
            current: "/clients", page)
    }

    /// What the last assignment or unassignment did, after its redirect; an id that is not one of
    /// this client's assignments (made up, or taken back since) says nothing.
    static func plansNotice(_ request: Request, assigned: [HistoryPage.Assigned], client: String) -> String? {
        let query = request.uri.queryParameters
        if let id = query.get("assigned") {
            return assigned.first { $0.id == id.lowercased() }.map {
                "\($0.name) is assigned to \(client), who sees it in the app now."
            }
        }
        if query.get("unassigned") != nil {
            return "Unassigned: \(client) no longer sees it. Workouts logged from it stay in their history."
        }
        return nil
    }

    static func notShared(_ link: CoachLink, _ scope: Scope) -> String {
        "\(link.lifterName) has not shared \(Format.shared(scope)) with you."
    }

    static func summary(_ summary: WorkoutSummary, _ format: Format) -> String {
        "\(Format.count(summary.exerciseCount, "exercise")) · \(Format.count(summary.setCount, "set")) · \(format.weight(summary.volume)) volume"
    }

    // MARK: - A workout

    struct WorkoutPage {
        struct Exercise {
            var name: String
            /// `Warm-up`, `Circuit 2`, `Cool-down · circuit 1`; empty for the main section outside circuits.
            var place: String
            var exerciseID: String
            /// Whether the exercise's progress opens for this coach (scope and tier): only then linked.
            var progress: Bool
            var notes: String
            /// Whether a set has a time or a distance: only then the table has their column.
            var hasTimes: Bool
            var sets: [SetRow]
        }

        struct SetRow {
            var label: String
            var warmup: Bool
            var weight: String
            var reps: String
            var timed: String
            var rpe: String
            var note: String
        }

        struct Comment {
            var id: String
            var author: String
            var date: String
            var target: String?
            var body: String
            var mine: Bool
        }

        struct Target {
            var value: String
            var label: String
            var selected: Bool
        }

        var client: ClientHeader
        var workoutID: String
        var name: String
        var date: String
        /// `nil` for a workout logged without a duration (not "0 min").
        var duration: String?
        var summary: String
        var notes: String
        var exercises: [Exercise]
        var comments: [Comment]
        var targets: [Target]
        var commentText: String
        var commentError: String?
    }

    private func workoutPage(_ context: PortalContext, comment: (text: String, target: String, error: String)?)
        async throws -> Response
    {
        let session = try coach(context)
        let link = try await activeLink(session, try context.parameters.require("client"))
        let format = try await clientFormat(session, link)
        let client = ClientHeader(link, format, viewer: session.profile.timeZone)
        let thread: (workout: Workout, comments: [WorkoutComment])
        do {
            thread = try await coaching.clientWorkoutThread(
                session.principal, client: client.id, workoutID: try context.parameters.require("workout"))
        } catch SpotterError.scopeNotGranted {
            // Back to the client list, as every closed client page leads (the access matrix keeps
            // a client who shares nothing out of the page, their id in a link included).
            return pages.problem(
                .forbidden, session: session, title: "Not shared", message: Self.notShared(link, .details),
                links: [("/clients", "Back to your clients")])
        }
        let workout = thread.workout
        let names = workout.content.exercises.map { workout.exerciseNames[$0.exerciseID] ?? "Exercise" }
        let setLabels = workout.content.exercises.map { Self.setLabels($0.sets) }
        let exercises = workout.content.exercises.enumerated().map { index, exercise in
            let section = ["warm_up": "Warm-up", "cool_down": "Cool-down"][exercise.section.rawValue]
            let circuit = exercise.circuit > 0 ? "circuit \(exercise.circuit)" : nil
            let place = [section, circuit].compactMap { $0 }.joined(separator: " · ")
            return WorkoutPage.Exercise(
                name: names[index], place: place.sentenceCased,
                exerciseID: exercise.exerciseID.description,
                progress: link.scopes.contains(.progress)
                    && CoachEntitlements.opensClientProgress(
                        for: exercise.exerciseID, tier: session.profile.tier.effective(at: Date())),
                notes: exercise.notes,
                hasTimes: exercise.sets.contains { $0.durationSeconds != nil || $0.distanceMeters != nil },
                sets: zip(exercise.sets, setLabels[index]).map { set, label in
                    let timed = set.durationSeconds != nil || set.distanceMeters != nil
                    return WorkoutPage.SetRow(
                        label: label.row, warmup: set.type == .warmUp, weight: format.setWeight(set.weight),
                        // A timed set without reps (a plank) has none to show.
                        reps: set.reps == 0 && timed ? "–" : "\(set.reps)",
                        timed: format.timedWork(seconds: set.durationSeconds, meters: set.distanceMeters),
                        rpe: set.rpe.map { "\($0)" } ?? "", note: set.note)
                })
        }
        // The comment targets name each set as its row in the table does: "set 1" is the first
        // working set, not a warm-up before it.
        func targetLabel(_ exercise: Int, _ set: Int) -> String {
            let label =
                setLabels.indices.contains(exercise) && setLabels[exercise].indices.contains(set)
                ? setLabels[exercise][set].target : "set \(set + 1)"
            return "\(names[exercise]), \(label)"
        }
        var targets = [WorkoutPage.Target(value: "", label: "The whole workout", selected: comment?.target ?? "" == "")]
        for (exercise, content) in workout.content.exercises.enumerated() {
            for set in content.sets.indices {
                let value = "\(exercise):\(set)"
                targets.append(
                    .init(value: value, label: targetLabel(exercise, set), selected: comment?.target == value))
            }
        }
        let page = WorkoutPage(
            client: client, workoutID: workout.id.description, name: workout.content.name,
            date: format.moment(workout.content.startedAt),
            duration: workout.content.durationSeconds > 0 ? format.duration(workout.content.durationSeconds) : nil,
            summary: Self.summary(workout.summary, format), notes: workout.content.notes, exercises: exercises,
            comments: thread.comments.map { comment in
                WorkoutPage.Comment(
                    id: comment.id.uuidString,
                    author: comment.authorSide == .coach && comment.authorID == session.principal.tenantID
                        ? "You" : (comment.authorName.isEmpty ? link.lifterName : comment.authorName),
                    date: format.moment(comment.createdAt),
                    target: comment.exerciseIndex.flatMap { exercise in
                        comment.setIndex.flatMap { set in
                            names.indices.contains(exercise) ? targetLabel(exercise, set) : nil
                        }
                    },
                    body: comment.body,
                    mine: comment.authorSide == .coach && comment.authorID == session.principal.tenantID)
            },
            targets: targets, commentText: comment?.text ?? "", commentError: comment?.error)
        return pages.render(
            "workout", title: workout.content.name, session: session, status: comment == nil ? .ok : .badRequest,
            current: "/clients", page)
    }

    /// Each set's label in the workout table (`W`, `1`, `2`, `3 (drop)`) and as a comment's target
    /// (`warm-up set 1`, `set 1`, `set 3 (drop)`): warm-ups apart, the other sets counted from 1.
    static func setLabels(_ sets: [WorkoutSet]) -> [(row: String, target: String)] {
        var (warmUps, working) = (0, 0)
        return sets.map { set in
            if set.type == .warmUp {
                warmUps += 1
                return ("W", "warm-up set \(warmUps)")
            }
            working += 1
            let kind = set.type == .working ? "" : " (\(set.type.rawValue))"
            return ("\(working)\(kind)", "set \(working)\(kind)")
        }
    }

    // MARK: - Progress

    struct ProgressPage {
        struct Option {
            var value: String
            var label: String
            var selected: Bool
        }

        struct Choice {
            var href: String
            var name: String
        }

        struct Report {
            struct Point {
                var date: String
                var e1rm: String
                var how: String
                /// The set the estimate came from, when it is not the top set.
                var from: String?
                var topSet: String
                var volume: String
                var sets: Int
            }

            var exercise: String
            var formula: String
            var svg: String
            /// What the chart shows: the estimated one-rep max, or the top set when no set gives one.
            var caption: String
            var hasPoints: Bool
            var points: [Point]
            var records: [String]
        }

        var client: ClientHeader
        var tab = ["progress": true]
        var notShared: String?
        var find = ""
        var exerciseID = ""
        var from = ""
        var to = ""
        var formulas: [Option] = []
        var rangeError: String?
        /// Why the finder found nothing: no name typed, no match, or a refused search.
        var findError: String?
        /// Why the picked exercise's progress is not shown: the coach's tier does not cover it.
        var locked: String?
        /// The chart image's query: the shown exercise, range and formula.
        var chartQuery = ""
        var hasChoices = false
        var choices: [Choice] = []
        var report: Report?
    }

    private func progressPage(_ request: Request, _ context: PortalContext) async throws -> Response {
        let session = try coach(context)
        // A client past the tier's number is closed here too, before any exercise is picked.
        let link = try await coaching.coveredClient(
            session.principal, client: try Self.clientID(try context.parameters.require("client")))
        let format = Format(session.profile)
        let query = request.uri.queryParameters
        var page = ProgressPage(client: ClientHeader(link, format))
        // Without the scope there is nothing to find: said at once, not after a search.
        guard link.scopes.contains(.progress) else {
            page.notShared = Self.notShared(link, .progress)
            return pages.render(
                "progress", title: "Progress of \(link.lifterName)", session: session, current: "/clients", page)
        }
        page.find = query.get("find") ?? ""
        page.exerciseID = query.get("exercise") ?? ""
        page.from = query.get("from") ?? ""
        page.to = query.get("to") ?? ""
        let formula = Self.formula(query.get("formula"))
        page.formulas = E1RMFormula.allCases.map {
            .init(value: $0.rawValue, label: $0.name, selected: $0 == formula)
        }
        // A range that is not one is said under the form, which keeps what was typed and picked.
        var from: Date?
        var to: Date?
        do {
            from = try page.from.isEmpty ? nil : Self.day(page.from, format, field: "From")
            to = try page.to.isEmpty ? nil : Self.day(page.to, format, field: "To", end: true)
            if let from, let to, from >= to { page.rangeError = "To must be after From." }
        } catch PortalError.badRequest(let message) {
            page.rangeError = message
        }
        let keep = "&from=\(Form.encode(page.from))&to=\(Form.encode(page.to))&formula=\(formula.rawValue)"
        if !page.find.trimmingWhitespaces().isEmpty {
            // The client's exercises (their custom ones too), read as the client's progress is.
            do {
                let found = try await coaching.clientExercises(
                    session.principal, client: page.client.id, query: page.find)
                page.choices = found.map {
                    .init(href: "/clients/\(page.client.id)/progress?exercise=\($0.id)\(keep)", name: $0.name)
                }
                page.hasChoices = !page.choices.isEmpty
                if found.isEmpty {
                    page.findError = "No exercise \(link.lifterName) can train matches “\(page.find)”."
                }
            } catch SpotterError.scopeNotGranted {
                page.notShared = Self.notShared(link, .progress)
            } catch SpotterError.invalidArgument(let violations) {
                page.findError = violations.map { SessionRoutes.sentence($0) }.joined(separator: " ")
            }
        } else if query.get("find") != nil, page.exerciseID.isEmpty {
            page.findError = "Type the name of an exercise to find it."
        }
        if !page.exerciseID.isEmpty, page.find.isEmpty, page.rangeError == nil {
            do {
                let report = try await coaching.clientProgress(
                    session.principal, client: page.client.id, exerciseID: page.exerciseID, from: from, to: to,
                    formula: formula)
                page.report = Self.report(report, formula, format)
                page.chartQuery = "exercise=\(Form.encode(page.exerciseID))\(keep)"
            } catch SpotterError.scopeNotGranted {
                page.notShared = Self.notShared(link, .progress)
            } catch SpotterError.tierRequired(let message, _) {
                // Said on the client's page, with the finder to pick another exercise.
                page.locked = PortalMiddleware.sentence(message)
            }
        }
        return pages.render(
            "progress", title: "Progress of \(link.lifterName)", session: session,
            status: page.locked != nil ? .forbidden : page.rangeError == nil ? .ok : .badRequest, current: "/clients",
            page)
    }

    static func day(_ text: String, _ format: Format, field: String, end: Bool = false) throws -> Date {
        guard let date = format.date(text, end: end) else {
            throw PortalError.badRequest("\(field) must be a date such as 2026-11-23.")
        }
        return date
    }

    /// The formula a link picks: Epley unless it says Brzycki.
    static func formula(_ value: String?) -> E1RMFormula {
        value == E1RMFormula.brzycki.rawValue ? .brzycki : .epley
    }

    /// How an estimate was made: "Epley", or "Epley, 2 reps in reserve" for a set with an RPE.
    static func method(_ estimate: EstimatedSet) -> String {
        guard let reserve = estimate.repsInReserve else { return estimate.formula.name }
        return "\(estimate.formula.name), \(OneRepMax.repsText(reserve)) \(reserve == 1 ? "rep" : "reps") in reserve"
    }

    static func setText(_ set: WorkoutSet, _ format: Format) -> String {
        "\(format.setWeight(set.weight)) × \(set.reps)" + (set.rpe.map { " @ RPE \($0)" } ?? "")
    }

    static func report(_ report: ProgressReport, _ formula: E1RMFormula, _ format: Format) -> ProgressPage.Report {
        let estimated = report.points.compactMap { point in
            point.best.map { best in
                Charts.Point(
                    day: point.date, value: format.estimateValue(best.kilograms),
                    title:
                        "\(format.day(point.date)): \(setText(best.record.set, format)) → e1RM \(format.estimate(best.kilograms)) (\(method(best)))"
                )
            }
        }
        var records: [String] = []
        if let heaviest = report.records.heaviest {
            records.append("Heaviest set: \(setText(heaviest.set, format)) on \(format.day(heaviest.startedAt))")
        }
        if let best = report.records.bestE1RM {
            records.append(
                "Best e1RM: \(format.estimate(best.kilograms)) from \(setText(best.record.set, format)) on \(format.day(best.record.startedAt))"
            )
        }
        for record in report.records.mostReps.prefix(5) {
            records.append("Most reps at \(format.setWeight(record.record.set.weight)): \(record.reps)")
        }
        // An exercise trained only for high reps (calf raises, lateral raises) gives no estimate on
        // any day: its chart shows the top set's weight instead, and says so.
        let topSets = report.points.compactMap { point in
            point.topSet.set.weight.map { weight in
                Charts.Point(
                    day: point.date, value: format.estimateValue(weight.approximateKilograms),
                    title: "\(format.day(point.date)): top set \(setText(point.topSet.set, format))")
            }
        }
        let byTopSet = estimated.isEmpty && !topSets.isEmpty
        return ProgressPage.Report(
            exercise: report.exercise.name, formula: formula.name,
            svg: Charts.line(
                byTopSet ? topSets : estimated, unit: format.unit.rawValue,
                description: byTopSet
                    ? "Top set of \(report.exercise.name) per training day"
                    : "Estimated one-rep max of \(report.exercise.name) per training day"),
            caption: byTopSet
                ? "Top set per training day: no set of this exercise gives an estimated one-rep max (the formulas hold for 1 to 12 reps, and from RPE 6)."
                : "Estimated one-rep max per training day by \(formula.name); a set logged with an RPE counts its reps in reserve too (10 − RPE).",
            hasPoints: !report.points.isEmpty,
            points: report.points.reversed().map { point in
                ProgressPage.Report.Point(
                    date: format.day(point.date), e1rm: point.best.map { format.estimate($0.kilograms) } ?? "–",
                    how: point.best.map { "\(method($0)) from \(setText($0.record.set, format))" }
                        ?? point.noEstimateReason ?? "",
                    from: point.best.flatMap {
                        $0.record.set == point.topSet.set ? nil : setText($0.record.set, format)
                    },
                    topSet: setText(point.topSet.set, format), volume: format.weight(point.volume), sets: point.setCount
                )
            },
            records: records)
    }

    /// The client list's "This week": the planned sessions done of those planned when the week has a
    /// plan, and the other workouts ("2 of 3 planned · 1 more"); else the workouts ("of 0 planned"
    /// says nothing: a program that has ended, or a week of rest days).
    static func thisWeek(workouts: Int, planned: Int?, plannedDone: Int?) -> String {
        guard let planned, planned > 0 else { return String(workouts) }
        let done = plannedDone ?? 0
        let others = workouts - done
        return "\(done) of \(planned) planned" + (others > 0 ? " · \(others) more" : "")
    }

    /// A client-list cell: `–`, `1 week`, `5 weeks`, `104+ weeks`.
    static func streakWeeks(_ weeks: Int) -> String {
        switch weeks {
        case 0: "–"
        case 1: "1 week"
        case WeeklyStreak.clientListWeeks...: "\(WeeklyStreak.clientListWeeks)+ weeks"
        default: "\(weeks) weeks"
        }
    }

    /// "5 weeks in a row since 6 Oct 2025 (longest: 12)", or when the last one was.
    static func streak(_ streak: WeeklyStreak, _ format: Format) -> String? {
        func monday(_ text: String?) -> String { text.map(format.day) ?? "" }
        guard streak.longest > 0 else { return nil }
        let longest = "longest: \(Format.count(streak.longest, "week"))"
        guard streak.current > 0 else {
            return
                "No workout in the last two weeks; the last was in the week of \(monday(streak.lastWeek)) (\(longest))."
        }
        let weeks = streak.current == 1 ? "1 week" : "\(streak.current) weeks in a row"
        return "Streak: \(weeks) since the week of \(monday(streak.currentSince)) (\(longest))."
    }

    // MARK: - Share images

    /// A client's workout as a share card: read as the workout page reads it (details scope,
    /// logged as GetClientWorkout), drawn in the coach's time zone and unit.
    private func workoutCard(_ context: PortalContext, _ format: ImageFormat) async throws -> Response {
        let session = try coach(context)
        let link = try await activeLink(session, try context.parameters.require("client"))
        let workout: Workout
        do {
            workout = try await coaching.clientWorkout(
                session.principal, client: link.lifterID.description,
                workoutID: try context.parameters.require("workout"))
        } catch SpotterError.scopeNotGranted {
            return pages.problem(
                .forbidden, session: session, title: "Not shared", message: Self.notShared(link, .details))
        }
        return Self.imageResponse(
            try await share.image(
                ShareCards.workoutCard(workout, format: try await clientFormat(session, link)), format),
            name: "workout-card")
    }

    /// A client's progress chart with the progress page's exercise, range and formula.
    private func progressChart(_ request: Request, _ context: PortalContext, _ format: ImageFormat) async throws
        -> Response
    {
        let session = try coach(context)
        let link = try await activeLink(session, try context.parameters.require("client"))
        let display = Format(session.profile)
        let query = request.uri.queryParameters
        let formula = Self.formula(query.get("formula"))
        let from = try (query.get("from") ?? "").isEmpty ? nil : Self.day(query.get("from")!, display, field: "From")
        let to = try (query.get("to") ?? "").isEmpty ? nil : Self.day(query.get("to")!, display, field: "To", end: true)
        let report: ProgressReport
        do {
            report = try await coaching.clientProgress(
                session.principal, client: link.lifterID.description, exerciseID: query.get("exercise") ?? "",
                from: from, to: to, formula: formula)
        } catch SpotterError.scopeNotGranted {
            return pages.problem(
                .forbidden, session: session, title: "Not shared", message: Self.notShared(link, .progress))
        }
        return Self.imageResponse(
            try await share.image(ShareCards.progressChart(report, format: display, formula: formula), format),
            name: "progress-chart")
    }

    static func imageResponse(_ image: ShareImage, name: String) -> Response {
        Response(
            status: .ok,
            headers: [
                .contentType: image.format.mediaType,
                .contentDisposition: "inline; filename=\"\(name).\(image.format.rawValue)\"",
            ],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: image.data)))
    }

    // MARK: - Statistics

    struct StatisticsPage {
        struct Period {
            var href: String
            var label: String
            var current: Bool
        }

        struct Bucket {
            var start: String
            var workouts: Int
            var minutes: Int
            var sets: Int
            var volume: String
            var muscles: String
        }

        /// An earned achievement, or one to come with its progress.
        struct Achievement {
            var title: String
            var detail: String
        }

        var client: ClientHeader
        var tab = ["statistics": true]
        var notShared: String?
        var periods: [Period] = []
        var earned: [Achievement] = []
        var hasEarned = false
        var earnedCount = 0
        var nextUp: [Achievement] = []
        var hasNextUp = false
        var period = "week"
        var periodTitle = "Week of"
        var streak: String?
        var hasBuckets = false
        var svg = ""
        var buckets: [Bucket] = []
    }

    /// How many are earned; the ten latest earned, newest first, with the day each was earned; and
    /// the three locked ones closest to done (challenges first), with their progress.
    static func achievements(_ list: [Achievement], _ format: Format) -> (
        Int, [StatisticsPage.Achievement], [StatisticsPage.Achievement]
    ) {
        let earned = list.compactMap { entry in entry.earned.map { (entry, $0) } }
            .sorted { ($0.1.earnedAt, $0.0.key) > ($1.1.earnedAt, $1.0.key) }
        let locked = list.filter { $0.earned == nil && $0.progress > 0 }
            .sorted {
                ($0.group == .challenge ? 1 : 0, Double($0.progress) / Double(max($0.target, 1)))
                    > ($1.group == .challenge ? 1 : 0, Double($1.progress) / Double(max($1.target, 1)))
            }
        return (
            earned.count,
            earned.prefix(10).map { entry, award in
                StatisticsPage.Achievement(title: entry.title, detail: "earned \(format.day(award.earnedAt))")
            },
            locked.prefix(3).map { StatisticsPage.Achievement(title: $0.title, detail: $0.progressText) }
        )
    }

    private func statisticsPage(_ request: Request, _ context: PortalContext) async throws -> Response {
        let session = try coach(context)
        let link = try await activeLink(session, try context.parameters.require("client"))
        let format = Format(session.profile)
        var page = StatisticsPage(client: ClientHeader(link, format))
        let period: StatisticsPeriod = request.uri.queryParameters.get("period") == "month" ? .month : .week
        page.period = period.rawValue
        page.periodTitle = period == .month ? "Month" : "Week of"
        page.periods = [("week", "Last 12 weeks"), ("month", "Last 12 months")].map {
            .init(
                href: "/clients/\(page.client.id)/statistics?period=\($0.0)", label: $0.1, current: $0.0 == page.period)
        }
        let at = now()
        let from = at.addingTimeInterval(period == .month ? -365 * 86_400 : -84 * 86_400)
        do {
            let statistics = try await coaching.clientStatistics(
                session.principal, client: page.client.id, period: period, from: from, to: at)
            let buckets = statistics.buckets
            func start(_ bucket: StatisticsBucket) -> String {
                period == .month ? format.month(bucket.startDate) : format.day(bucket.startDate)
            }
            page.streak = Self.streak(statistics.streak, format)
            page.hasBuckets = !buckets.isEmpty
            page.svg = Charts.bars(
                buckets.map { bucket in
                    Charts.Point(
                        day: bucket.startDate, value: format.value(bucket.volume),
                        title:
                            "\(start(bucket)): \(Format.count(bucket.workouts, "workout")), "
                            + "\(Format.count(bucket.setCount, "set")), \(format.weight(bucket.volume))"
                    )
                }, periodDays: period == .month ? 30.44 : period == .week ? 7 : 1, unit: format.unit.rawValue,
                description: "Volume of \(link.lifterName) per \(period.rawValue)")
            page.buckets = buckets.reversed().map { bucket in
                StatisticsPage.Bucket(
                    start: start(bucket), workouts: bucket.workouts, minutes: bucket.activeMinutes,
                    sets: bucket.setCount, volume: format.weight(bucket.volume),
                    muscles: bucket.muscleGroups.prefix(3).map {
                        $0.muscleGroup.rawValue.replacingOccurrences(of: "_", with: " ")
                    }
                    .joined(separator: ", "))
            }
            let (_, achievements) = try await coaching.clientAchievements(session.principal, client: page.client.id)
            (page.earnedCount, page.earned, page.nextUp) = Self.achievements(achievements, format)
            page.hasEarned = !page.earned.isEmpty
            page.hasNextUp = !page.nextUp.isEmpty
        } catch SpotterError.scopeNotGranted {
            page.notShared = Self.notShared(link, .progress)
        }
        return pages.render(
            "statistics", title: "Statistics of \(link.lifterName)", session: session, current: "/clients", page)
    }
}

extension CoachRoutes {
    struct BodyPage {
        struct Series {
            var name: String
            var latest: String
            var latestDay: String
            var firstDay: String
            var change: String?
            /// A line chart once there are two values.
            var svg: String?
        }

        var client: ClientHeader
        var tab = ["body": true]
        var notShared: String?
        var series: [Series] = []
    }

    /// The client's body measurements (body scope), a chart per metric, in the coach's units.
    func bodyPage(_ context: PortalContext) async throws -> Response {
        let session = try coach(context)
        let link = try await activeLink(session, try context.parameters.require("client"))
        let format = Format(session.profile)
        var page = BodyPage(client: ClientHeader(link, format))
        do {
            let all = try await coaching.clientMeasurements(
                session.principal, client: page.client.id, metrics: [], from: "", to: "")
            page.series = all.compactMap { series in
                guard let first = series.measurements.first, let last = series.measurements.last else { return nil }
                let unit = BodyUnit.shown(series.metric, for: format.unit)
                func text(_ value: Decimal) -> String { "\(value) \(unit.symbol)" }
                // "Body weight", "Arm left": a heading's first word capitalised, as the portal's others.
                let words = series.metric.rawValue.replacingOccurrences(of: "_", with: " ")
                let name = words.prefix(1).uppercased() + words.dropFirst()
                return BodyPage.Series(
                    name: name, latest: text(last.value(in: unit)), latestDay: format.day(last.measuredOn),
                    firstDay: format.day(first.measuredOn),
                    change: series.change(in: unit).map { ($0 > 0 ? "+" : "") + text($0) },
                    svg: series.measurements.count > 1
                        ? Charts.line(
                            series.measurements.map { measurement in
                                Charts.Point(
                                    day: measurement.measuredOn,
                                    value: measurement.value(in: unit).doubleValue,
                                    title: "\(format.day(measurement.measuredOn)): \(text(measurement.value(in: unit)))"
                                        + (measurement.note.isEmpty ? "" : " — \(measurement.note)"))
                            }, unit: unit.symbol, description: "\(name) of \(link.lifterName)")
                        : nil)
            }
        } catch SpotterError.scopeNotGranted {
            page.notShared = Self.notShared(link, .body)
        }
        return pages.render("body", title: "Body of \(link.lifterName)", session: session, current: "/clients", page)
    }
}

/// The confirmation before a link ends, for either side.
struct EndLinkPage {
    var name: String
    var consequence: String
    var action: String
    var back: String
    /// The question and the button: ending a coaching, or withdrawing a request not yet answered.
    var question = "End coaching with"
    var button = "End coaching"
    /// The action cannot be taken (`consequence` says why): no button, only the way back.
    var refused = false
}
