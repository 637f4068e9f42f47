import Foundation

/// Programs, a coach's assignments, and following a program.
extension CoachingService {
    static let programNotFound = SpotterError.notFound("program not found")

    static func programID(_ text: String, field: String = "program_id") throws(SpotterError) -> ProgramID {
        guard !text.isEmpty else { throw .invalid(field, "is required") }
        guard let id = ProgramID(text) else { throw .invalid(field, "must be a UUID") }
        return id
    }

    // MARK: Programs (any tenant; each in its own tenant)

    public func createProgram(_ principal: Principal, id: String, _ draft: ProgramDraft) async throws -> Program {
        let programID = id.isEmpty ? ProgramID.random() : try Self.programID(id)
        return try await store.createProgram(principal, programID, try draft.validated(), now: now())
    }

    public func updateProgram(_ principal: Principal, id: String, _ draft: ProgramDraft, expectedVersion: Int64?)
        async throws -> Program
    {
        let programID = try Self.programID(id)
        return try await store.updateProgram(
            principal, programID, try draft.validated(), expectedVersion: expectedVersion, now: now())
    }

    /// One of the principal's programs, or one assigned to the lifter by an actively linked coach.
    public func program(_ principal: Principal, id: String) async throws -> Program {
        guard let program = try await store.program(principal, try Self.programID(id)) else {
            throw Self.programNotFound
        }
        return program
    }

    /// One of the principal's own programs; one assigned by a coach is not found (it is the
    /// coach's to edit, assign or publish).
    public func ownProgram(_ principal: Principal, id: String) async throws -> Program {
        let program = try await program(principal, id: id)
        guard program.ownerID == principal.tenantID else { throw Self.programNotFound }
        return program
    }

    public func programs(_ principal: Principal) async throws -> [Program] {
        try await store.programs(principal)
    }

    public func deleteProgram(_ principal: Principal, id: String) async throws {
        guard try await store.deleteProgram(principal, try Self.programID(id), now: now()) else {
            throw Self.programNotFound
        }
    }

    // MARK: Assignments

    /// A coach gives an active client one of the coach's templates or programs. The lifter sees it
    /// until it is removed or the link ends, always at its latest version.
    public func assign(
        _ principal: Principal, client: String, templateID: String, programID: String, note: String
    ) async throws -> Assignment {
        let context = try await requireKind(.coach, principal)
        let clientID = try Self.tenantID(client, field: "client_id")
        var validator = Validator()
        validator.check(
            templateID.isEmpty != programID.isEmpty, "template_id",
            "exactly one of template_id and program_id is needed")
        validator.check(note.storedLength <= 1000, "note", "must be at most 1000 characters")
        try validator.validate()
        // The coach's custom exercises they use are shared with the client as it is stored
        // (0064_assigned_custom_exercises.sql).
        let item: Assignment.Item =
            templateID.isEmpty
            ? .program(try await ownProgram(principal, id: programID).id)
            : .template(try await training.templates.get(principal, id: templateID).id)
        return try await store.linking(principal) { link in
            // Held until the assignment is written: the link cannot end in between.
            guard try await link.holdActiveLink(lifter: clientID, coach: principal.tenantID) else {
                throw Self.clientNotFound
            }
            _ = try await coveredClientLink(
                principal, client: clientID, tier: context.tier.effective(at: now()), link)
            return try await store.assign(
                principal,
                Assignment(
                    id: UUID(), coachID: principal.tenantID, lifterID: clientID, item: item, name: "", version: 0,
                    note: note, createdAt: now(), coachName: ""))
        }
    }

    public func unassign(_ principal: Principal, id: String) async throws {
        _ = try await requireKind(.coach, principal)
        guard let uuid = UUID(hexadecimal: id) else { throw SpotterError.invalid("assignment_id", "must be a UUID") }
        guard try await store.unassign(principal, uuid, now: now()) else {
            throw SpotterError.notFound("assignment not found")
        }
    }

    /// A coach's assignments (all, or for one client); a lifter's received ones.
    public func assignments(_ principal: Principal, client: String) async throws -> [Assignment] {
        let context = try await principal.context(from: contexts)
        if context.kind == .coach {
            return try await store.assignments(
                principal, lifter: client.isEmpty ? nil : try Self.tenantID(client, field: "client_id"))
        }
        return try await store.assignments(principal, lifter: nil)
    }

    // MARK: Following

    /// A lifter follows one of their programs or an assigned one from `startOn` (default today;
    /// within a year of today either way).
    public func follow(_ principal: Principal, programID: String, startOn: String) async throws -> ProgramFollow {
        let context = try await requireKind(.lifter, principal)
        let program = try await program(principal, id: programID)
        let today = ProgramSchedule.localDay(now(), timeZoneID: context.timeZone)
        let start: String
        if startOn.isEmpty {
            start = ProgramSchedule.format(today)
        } else {
            // Within a year of today either way: a start in 1900 reads as long finished, one in 9999
            // as never begun, and either is a typo rather than a plan.
            let date = try ProgramSchedule.date(startOn, field: "start_on")
            guard abs(date.timeIntervalSince(today)) <= 366 * 86_400 else {
                throw SpotterError.invalid(
                    "start_on", "must be within a year of today (\(ProgramSchedule.format(today)))")
            }
            start = startOn
        }
        try await store.follow(principal, program, startedOn: start, now: now())
        return ProgramFollow(program: program, startedOn: start)
    }

    public func unfollow(_ principal: Principal) async throws {
        _ = try await requireKind(.lifter, principal)
        guard try await store.unfollow(principal) else {
            throw SpotterError.failedPrecondition("no program is being followed")
        }
    }

    /// Today in the lifter's time zone: the followed program's day and its template.
    public func today(_ principal: Principal) async throws -> TodayPlan {
        let context = try await requireKind(.lifter, principal)
        let today = ProgramSchedule.localDay(now(), timeZoneID: context.timeZone)
        guard let follow = try await store.followed(principal) else {
            return TodayPlan(date: ProgramSchedule.format(today), follow: nil, day: nil, template: nil)
        }
        let day = ProgramSchedule.plan(
            follow.program.content, startedOn: try ProgramSchedule.date(follow.startedOn, field: "started_on"),
            on: today)
        let template = try await day.templateID.asyncMap { try await templates.template(principal, $0) } ?? nil
        return TodayPlan(date: ProgramSchedule.format(today), follow: follow, day: day, template: template)
    }
}

extension Sequence where Element: Hashable {
    /// The elements in order, each once.
    public func uniqued() -> [Element] {
        var seen: Set<Element> = []
        return filter { seen.insert($0).inserted }
    }
}

extension Sequence {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}

extension Optional {
    /// `map` for an async transform.
    public func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        guard let value = self else { return nil }
        return try await transform(value)
    }
}
