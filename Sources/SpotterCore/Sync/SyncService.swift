import Foundation

/// Devices, the change feed and pushed mutations.
public protocol SyncStore: Sendable {
    func registerDevice(_ principal: Principal, _ id: DeviceID, label: String, now: Date) async throws -> Device
    func devices(_ principal: Principal) async throws -> [Device]
    /// Forgets one of the tenant's devices with the results stored for its pushes; `false` when
    /// there was none.
    func removeDevice(_ principal: Principal, _ id: DeviceID) async throws -> Bool

    /// In a transaction that holds the device's row lock: answers mutations the device already
    /// pushed with their stored results, and runs `apply` for each new one in order, each inside
    /// a savepoint, recording its result and the device's last mutation id. A `SpotterError`
    /// from `apply` rolls back that mutation only and is recorded as `rejection(for:_:tenant:)` says;
    /// any other error rolls back the transaction. A store may apply a long push in several
    /// transactions one after another (each mutation with its result and the device's last id);
    /// the error then keeps what earlier ones applied, which a retry answers from storage.
    /// `notFound` when the device is not the principal's; `failedPrecondition`, changing nothing,
    /// when the first new mutation does not follow the last applied one.
    func push(
        _ principal: Principal,
        device: DeviceID,
        _ mutations: [Mutation],
        now: Date,
        apply: (Mutation) async throws -> MutationResult
    ) async throws -> [MutationResult]

    /// The stored version of an object, read with a row lock (within `push`, in its transaction);
    /// `nil` when the tenant has no such object. For the profile `id` is the tenant's id.
    func objectState(_ principal: Principal, _ kind: SyncKind, _ id: UUID) async throws -> ObjectState?

    /// Up to `limit` changes after `cursor`, oldest first, read from one snapshot; `nil` when the
    /// cursor is older than the purged tombstones or ahead of the tenant's feed. An empty cursor
    /// skips tombstones (a new device has nothing to delete).
    func pull(_ principal: Principal, after cursor: SyncCursor, limit: Int, device: DeviceID?) async throws
        -> PullPage?

    /// Forgets tombstones and stored mutation results older than `retentionDays` by the
    /// database's clock (which stamps them); returns the number of tombstones forgotten.
    func purge(retentionDays: Int) async throws -> Int
}

/// Offline-first sync: a device pushes the mutations it made offline and pulls every change since
/// its cursor. Modelled on Replicache's push/pull protocol.
public struct SyncService: Sendable {
    public static let maxMutationsPerPush = 100
    /// The largest mutation id: 2^53 - 1, the largest integer every JSON client reads exactly.
    public static let maxMutationID: Int64 = 9_007_199_254_740_991
    public static let defaultPullSize = 200
    public static let maxPullSize = 1000

    private let store: any SyncStore
    private let training: TrainingServices
    private let coaching: CoachingService
    private let accounts: AccountService
    /// How long deletions stay in the feed; a device that was away longer starts over.
    public let retentionDays: Int
    private let now: @Sendable () -> Date
    private let readAhead = PullReadAhead()

    public init(
        store: any SyncStore,
        training: TrainingServices,
        coaching: CoachingService,
        accounts: AccountService,
        retentionDays: Int = 30,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.store = store
        self.training = training
        self.coaching = coaching
        self.accounts = accounts
        self.retentionDays = retentionDays
        self.now = now
    }

    public func registerDevice(_ principal: Principal, label: String) async throws -> Device {
        let label = label.trimmingWhitespacesAndNewlines()
        guard label.storedLength <= 100 else { throw SpotterError.invalid("label", "must be at most 100 characters") }
        return try await store.registerDevice(principal, DeviceID.random(), label: label, now: now())
    }

    public func devices(_ principal: Principal) async throws -> [Device] {
        try await store.devices(principal)
    }

    /// Forgets a device (a lost or replaced phone): its pushes are refused afterwards, and the app
    /// on it registers anew. The data it pushed stays.
    public func removeDevice(_ principal: Principal, deviceID: String) async throws {
        guard try await store.removeDevice(principal, try Self.deviceID(deviceID)) else {
            throw SpotterError.notFound("device_id: no such device")
        }
    }

    /// Applies each new mutation exactly once, in order; answers already applied ones as before.
    public func push(_ principal: Principal, deviceID: String, _ mutations: [Mutation]) async throws
        -> [MutationResult]
    {
        let device = try Self.checkBatch(deviceID: deviceID, mutations)
        // Results are stored with paths relative to their mutation, so a replay names the
        // mutation's place in the batch that carries it now.
        let results = try await store.push(principal, device: device, mutations, now: now()) { mutation in
            try await apply(principal, mutation)
        }
        return results.map { $0.locating(at: "mutations[\($0.mutationID - mutations[0].id)].") }
    }

    /// The device of a push whose batch has the right shape: at most `maxMutationsPerPush`
    /// mutations, numbered one after another from a first id in 1…`maxMutationID`. Each mutation's
    /// content is checked later, on its own.
    public static func checkBatch(deviceID: String, _ mutations: [Mutation]) throws(SpotterError) -> DeviceID {
        let device = try Self.deviceID(deviceID)
        var validator = Validator()
        validator.check(
            mutations.count <= maxMutationsPerPush, "mutations", "must be at most \(maxMutationsPerPush) per push")
        // Client numbers: the range first, then arithmetic that cannot overflow within it.
        if let first = mutations.first?.id {
            let valid = (1...maxMutationID).contains(first)
            validator.check(valid, "mutations[0].mutation_id", "must be between 1 and \(maxMutationID)")
            for (index, mutation) in mutations.enumerated().dropFirst()
            where valid && mutation.id != first + Int64(index) {
                validator.add(
                    "mutations[\(index)].mutation_id",
                    "must be \(first + Int64(index)), one more than the mutation before it")
            }
        }
        try validator.validate()
        return device
    }

    /// One page of changes after `cursor` (empty: from the start).
    public func pull(_ principal: Principal, cursor token: String, pageSize: Int, deviceID: String) async throws
        -> PullPage
    {
        let cursor = try SyncCursor.decode(token, for: principal.tenantID)
        let limit = pageSize == 0 ? Self.defaultPullSize : pageSize
        guard (1...Self.maxPullSize).contains(limit) else {
            throw SpotterError.invalid("page_size", "must be between 1 and \(Self.maxPullSize)")
        }
        let device = try deviceID.isEmpty ? nil : Self.deviceID(deviceID)
        let key = PullReadAhead.Key(principal, cursor, limit: limit, device: device)
        var readPage = await readAhead.take(key)
        if readPage == nil { readPage = try await store.pull(principal, after: cursor, limit: limit, device: device) }
        guard var page = readPage else { throw SpotterError.syncResetRequired(retentionDays: retentionDays) }
        page.cursor.tenant = principal.tenantID
        let next = page.cursor
        if page.hasMore {
            let store = store
            readAhead.start(PullReadAhead.Key(principal, next, limit: limit, device: device)) {
                try await store.pull(principal, after: next, limit: limit, device: device)
            }
        }
        return page
    }

    /// How many pull pages were served from a read ahead (see `PullReadAhead`).
    public var pagesReadAhead: Int { readAhead.takenCount }

    /// Forgets deletions older than the retention period; returns how many.
    @discardableResult
    public func purge() async throws -> Int {
        try await store.purge(retentionDays: retentionDays)
    }

    // MARK: Applying one mutation

    /// Applies `mutation` if it is based on the stored version; otherwise answers a conflict and
    /// changes nothing. Throws `SpotterError` for a mutation that is invalid or not allowed.
    private func apply(_ principal: Principal, _ mutation: Mutation) async throws -> MutationResult {
        do {
            return try await applyChecked(principal, mutation)
        } catch let error as SpotterError {
            throw error.relativeToMutation(of: mutation.kind)
        }
    }

    private func applyChecked(_ principal: Principal, _ mutation: Mutation) async throws -> MutationResult {
        let id = try Self.objectID(principal, mutation)
        var result = MutationResult(
            mutationID: mutation.id, status: .applied, kind: mutation.kind, objectID: id, version: 0,
            baseVersion: mutation.baseVersion)
        guard mutation.baseVersion >= 0 else { throw SpotterError.invalid("base_version", "must not be negative") }
        let state = try await store.objectState(principal, mutation.kind, id)
        switch (state, mutation.change) {
        case (nil, .put) where mutation.baseVersion == 0:
            result.version = try await create(principal, id, mutation)
        case (nil, _):
            throw SpotterError.notFound("object_id: no such \(mutation.kind.rawValue)")
        case (let state?, .delete) where state.deleted:
            break  // Deleted already, by another device: nothing to do.
        case (let state?, _) where state.deleted || state.version != mutation.baseVersion:
            result.status = .conflict
            result.version = state.version
            result.serverDeleted = state.deleted
        case (_, .put(let content)):
            result.version = try await update(principal, id, content, expectedVersion: mutation.baseVersion)
        case (_, .delete):
            try await delete(principal, id, mutation.kind)
        }
        return result
    }

    /// Creates the object; returns its version.
    private func create(_ principal: Principal, _ id: UUID, _ mutation: Mutation) async throws -> Int64 {
        guard case .put(let content) = mutation.change else { return 0 }
        let text = id.uuidString
        switch content {
        case .workout(let draft): return try await training.workouts.log(principal, id: text, draft).version
        case .template(let draft): return try await training.templates.create(principal, id: text, draft).version
        case .exercise(let draft):
            return try await training.exercises.create(principal, id: text, draft).custom?.version ?? 1
        case .program(let draft): return try await coaching.createProgram(principal, id: text, draft).version
        case .profile: return 0  // The profile always exists.
        case .measurement(let draft):
            return try await training.body.createReplacingDay(principal, id: text, draft).version
        }
    }

    /// Replaces the object's content; returns its new version.
    private func update(_ principal: Principal, _ id: UUID, _ content: Mutation.Content, expectedVersion: Int64)
        async throws -> Int64
    {
        let text = id.uuidString
        switch content {
        case .workout(let draft):
            return try await training.workouts.replace(principal, id: text, draft, expectedVersion: expectedVersion)
                .version
        case .template(let draft):
            return try await training.templates.update(principal, id: text, draft, expectedVersion: expectedVersion)
                .version
        case .exercise(let draft):
            return try await training.exercises.update(principal, id: text, draft, expectedVersion: expectedVersion)
                .custom?.version ?? 1
        case .program(let draft):
            return try await coaching.updateProgram(principal, id: text, draft, expectedVersion: expectedVersion)
                .version
        case .profile(let update):
            return try await accounts.updateProfile(principal, update).version
        case .measurement(let draft):
            return try await training.body.update(principal, id: text, draft, expectedVersion: expectedVersion).version
        }
    }

    private func delete(_ principal: Principal, _ id: UUID, _ kind: SyncKind) async throws {
        let text = id.uuidString
        switch kind {
        case .workout: try await training.workouts.delete(principal, id: text)
        case .template: try await training.templates.delete(principal, id: text)
        case .exercise: try await training.exercises.delete(principal, id: text)
        case .program: try await coaching.deleteProgram(principal, id: text)
        case .measurement: try await training.body.delete(principal, id: text)
        case .profile: throw SpotterError.invalid("delete", "the profile cannot be deleted")
        case .follow, .comment, .assignment, .achievement: throw Self.notWritable(kind)
        }
    }

    /// The mutation's object id, checked against its kind and content.
    private static func objectID(_ principal: Principal, _ mutation: Mutation) throws(SpotterError) -> UUID {
        guard mutation.kind.isWritable else { throw notWritable(mutation.kind) }
        if case .put(let content) = mutation.change, content.kind != mutation.kind {
            throw .invalid(
                "kind", "is \(mutation.kind.rawValue), but the mutation carries a \(content.kind.rawValue)")
        }
        if mutation.kind == .profile {
            guard mutation.objectID.isEmpty || mutation.objectID.lowercased() == principal.tenantID.description else {
                throw .invalid("object_id", "must be empty or your tenant id for the profile")
            }
            return principal.tenantID.rawValue
        }
        guard !mutation.objectID.isEmpty else { throw .invalid("object_id", "is required") }
        guard let id = UUID(hexadecimal: mutation.objectID) else { throw .invalid("object_id", "must be a UUID") }
        return id
    }

    private static func notWritable(_ kind: SyncKind) -> SpotterError {
        .invalid("kind", "\(kind.rawValue) objects cannot be changed by a push")
    }

    static func deviceID(_ text: String) throws(SpotterError) -> DeviceID {
        guard !text.isEmpty else { throw .invalid("device_id", "is required; register the device first") }
        guard let id = DeviceID(text) else { throw .invalid("device_id", "must be a UUID") }
        return id
    }
}

extension Mutation.Content {
    /// The kind of object this content is.
    public var kind: SyncKind {
        switch self {
        case .workout: .workout
        case .template: .template
        case .exercise: .exercise
        case .program: .program
        case .profile: .profile
        case .measurement: .measurement
        }
    }
}

extension MutationResult {
    /// The recorded answer for a mutation `apply` refused with `error`; `nil` when the error is
    /// not the mutation's fault (the database is away) and the push must fail instead (keeping
    /// what earlier transactions of a long push applied). A profile mutation sent without an
    /// object id names the tenant's profile, as an applied one does.
    public static func rejection(for mutation: Mutation, _ error: SpotterError, tenant: TenantID) -> MutationResult? {
        let objectID =
            mutation.kind == .profile && mutation.objectID.isEmpty
            ? tenant.rawValue : UUID(hexadecimal: mutation.objectID)
        var result = MutationResult(
            mutationID: mutation.id, status: .rejected, kind: mutation.kind, objectID: objectID, version: 0,
            baseVersion: mutation.baseVersion)
        switch error {
        case .invalidArgument(let violations):
            result.violations = violations
        case .alreadyExists(let field, let reason):
            result.violations = [FieldViolation(field: field, reason: reason)]
        case .notFound(let message) where message.hasPrefix("object_id: "):
            // An id that names nothing is a field's problem, named as the others are.
            result.violations = [
                FieldViolation(field: "object_id", reason: String(message.dropFirst("object_id: ".count)))
            ]
        case .notFound(let message), .failedPrecondition(let message), .permissionDenied(let message),
            .tierRequired(let message, _), .scopeNotGranted(let message, _):
            result.message = message
        case .unauthenticated, .tooManyRequests, .unavailable, .syncReset:
            return nil
        }
        return result
    }

    /// The result as answered for a mutation at `path` of the request (`mutations[3].`): its field
    /// paths, stored relative to the mutation, start with it, and so does the message.
    func locating(at path: String) -> MutationResult {
        var located = self
        located.violations = violations.map { FieldViolation(field: path + $0.field, reason: $0.reason) }
        if !violations.isEmpty {
            located.message = located.violations.listed
        } else if message.hasPrefix("object_id:") {
            located.message = path + message
        } else if !message.isEmpty {
            // "mutations[1]: this template is a training day of program …"
            located.message = path.dropLast() + ": " + message
        }
        return located
    }
}

extension SpotterError {
    /// Field paths made relative to the mutation: the kind's name before a field the service named
    /// in the content alone (`display_name` → `profile.display_name`).
    func relativeToMutation(of kind: SyncKind) -> SpotterError {
        func relative(_ field: String) -> String {
            let own = ["object_id", "base_version", "kind", "delete", kind.rawValue]
            return own.contains(where: { field == $0 || field.hasPrefix($0 + ".") || field.hasPrefix($0 + "[") })
                ? field : kind.rawValue + "." + field
        }
        switch self {
        case .invalidArgument(let violations):
            return .invalidArgument(violations.map { FieldViolation(field: relative($0.field), reason: $0.reason) })
        case .alreadyExists(let field, let reason):
            return .alreadyExists(field: relative(field), reason: reason)
        default:
            return self
        }
    }
}
