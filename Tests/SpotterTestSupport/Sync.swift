import Foundation
import Logging
import Postgres
import SpotterCore
import SpotterPostgres

/// One object a device keeps: its kind and id.
public struct SyncObjectKey: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var kind: SyncKind
    public var id: UUID

    public init(_ kind: SyncKind, _ id: UUID) {
        self.kind = kind
        self.id = id
    }

    public var description: String { "\(kind.rawValue)/\(id.uuidString.lowercased())" }

    public static func < (lhs: SyncObjectKey, rhs: SyncObjectKey) -> Bool { lhs.description < rhs.description }
}

extension SyncChange {
    public var key: SyncObjectKey { SyncObjectKey(kind, objectID) }
}

/// A client app installation as the sync tests simulate it: the objects it holds are built only
/// from what it pulled; its mutation ids count up from 1.
public struct SimulatedDevice: Sendable {
    public let principal: Principal
    public let id: DeviceID
    /// The id of the last mutation this device made (pushed or not).
    public private(set) var lastMutationID: Int64 = 0
    public var cursor = ""
    public private(set) var objects: [SyncObjectKey: SyncObject] = [:]
    /// Every change pulled, in order.
    public private(set) var pulled: [SyncChange] = []

    public init(principal: Principal, id: DeviceID) {
        self.principal = principal
        self.id = id
    }

    public static func register(_ sync: SyncService, _ principal: Principal, label: String) async throws
        -> SimulatedDevice
    {
        SimulatedDevice(principal: principal, id: try await sync.registerDevice(principal, label: label).id)
    }

    /// The next mutation of this device: a put of `content`.
    public mutating func put(_ content: Mutation.Content, _ objectID: UUID?, base: Int64) -> Mutation {
        lastMutationID += 1
        return Mutation(
            id: lastMutationID, kind: content.kind, objectID: objectID?.uuidString.lowercased() ?? "",
            baseVersion: base, change: .put(content))
    }

    /// The next mutation of this device: a delete.
    public mutating func delete(_ kind: SyncKind, _ objectID: UUID, base: Int64) -> Mutation {
        lastMutationID += 1
        return Mutation(
            id: lastMutationID, kind: kind, objectID: objectID.uuidString.lowercased(), baseVersion: base,
            change: .delete)
    }

    public func push(_ sync: SyncService, _ mutations: [Mutation]) async throws -> [MutationResult] {
        try await sync.push(principal, deviceID: id.description, mutations)
    }

    /// Pulls page after page until the server has no more; keeps what it got and returns it.
    @discardableResult
    public mutating func pullAll(_ sync: SyncService, pageSize: Int = 100) async throws -> [SyncChange] {
        var changes: [SyncChange] = []
        for _ in 0..<10_000 {
            let page = try await sync.pull(principal, cursor: cursor, pageSize: pageSize, deviceID: id.description)
            apply(page.changes)
            changes += page.changes
            cursor = page.cursor.token
            if !page.hasMore { return changes }
        }
        throw PullDidNotEnd()
    }

    /// Keeps the objects of `changes`; a tombstone removes one.
    public mutating func apply(_ changes: [SyncChange]) {
        pulled += changes
        for change in changes {
            objects[change.key] = change.object
        }
    }

    /// The version this device holds of an object.
    public func version(_ kind: SyncKind, _ id: UUID) -> Int64? {
        objects[SyncObjectKey(kind, id)]?.version
    }

    /// Every object held, one line each, sorted: equal holdings, equal text.
    public var canonicalDump: String {
        objects.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value.canonical)" }.joined(separator: "\n")
    }
}

/// Thrown when a pull keeps answering `hasMore` for ever.
public struct PullDidNotEnd: Error {
    public init() {}
}

extension SyncObject {
    /// The object's own version, where it has one.
    public var version: Int64? {
        switch self {
        case .workout(let workout): workout.version
        case .template(let template): template.version
        case .exercise(let exercise): exercise.custom?.version
        case .program(let program): program.version
        case .profile(let profile): profile.version
        case .follow(let follow): follow.program.version
        case .comment: nil
        case .assignment(let plan): plan.assignment.version
        case .achievement: nil
        case .measurement(let measurement): measurement.version
        }
    }

    /// A deterministic text of every field (dictionaries sorted), for comparing what devices hold.
    public var canonical: String {
        switch self {
        case .workout(let workout):
            [
                "workout", json(workout.content), json(workout.summary), "\(workout.templateVersion ?? -1)",
                names(workout.exerciseNames), "v\(workout.version)", json(workout.createdAt), json(workout.updatedAt),
            ].joined(separator: "|")
        case .template(let template): Self.canonical(template)
        case .exercise(let exercise): "exercise|" + json(exercise)
        case .program(let program): Self.canonical(program)
        case .profile(let profile): "profile|" + json(profile)
        case .measurement(let measurement): "measurement|" + json(measurement)
        case .follow(let follow): "follow|" + follow.startedOn + "|" + Self.canonical(follow.program)
        case .comment(let comment): "comment|" + json(comment)
        case .assignment(let plan):
            (["assignment", json(plan.assignment)] + plan.templates.map(Self.canonical)
                + [plan.program.map(Self.canonical) ?? "-"]).joined(separator: "|")
        case .achievement(let achievement):
            [
                "achievement", achievement.key, json(achievement.earned?.earnedAt),
                achievement.earned?.workoutID.description ?? "-",
            ]
            .joined(separator: "|")
        }
    }

    private static func canonical(_ template: Template) -> String {
        [
            "template", template.id.description, json(template.content), json(template.archivedAt),
            "v\(template.version)", json(template.createdAt), json(template.updatedAt), names(template.exerciseNames),
        ].joined(separator: "|")
    }

    private static func canonical(_ program: Program) -> String {
        [
            "program", program.id.description, program.ownerID.description, json(program.content),
            "v\(program.version)", json(program.createdAt), json(program.updatedAt), names(program.templateNames),
        ].joined(separator: "|")
    }
}

private func json(_ value: some Encodable) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "<unencodable>"
}

private func names<K: CustomStringConvertible>(_ names: [K: String]) -> String {
    names.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: ",")
}

extension TestDatabase {
    /// SHA-256 (hex) of `text`, computed by PostgreSQL.
    public func sha256(_ text: String) async throws -> String {
        try await asOwner {
            try await $0.query("SELECT encode(sha256(convert_to($1, 'UTF8')), 'hex') AS h", [text]).single!.decode("h")
        }
    }

    /// The tenant's profile, read through the account service.
    public func profile(_ principal: Principal) async throws -> Profile {
        try await accountService().profile(principal)
    }

    /// Profile settings on this database, with a clock the test controls.
    public func accountService(clock: TestClock? = nil) -> AccountService {
        AccountService(
            store: PostgresProfileStore(database: SpotterDatabase(pool: appPool)), now: { clock?.now ?? Date() })
    }

    /// A fresh database with only the migrations up to `version` applied. `body` gets the database
    /// and a function that applies the remaining migrations.
    public static func withMigrations<T: Sendable>(
        through version: Int,
        _ body: (TestDatabase, _ migrateRest: @Sendable () async throws -> Void) async throws -> T
    ) async throws -> T {
        let server = try serverConfiguration()
        // The shared template's migration creates the cluster's roles first; two migrations
        // creating them at once on a fresh cluster collide.
        _ = try await TemplateDatabase.shared.name(server: server)
        return try await using(try await create(server, template: nil)) { database in
            let all = try Migrator.load(from: migrationsDirectory)
            let migrate: @Sendable ([Migration]) async throws -> Void = { migrations in
                try await database.asOwner {
                    _ = try await Migrator(migrations: migrations, logger: Logger(label: "test")).migrate($0)
                }
            }
            try await migrate(all.filter { $0.version <= version })
            return try await body(database) { try await migrate(all) }
        }
    }
}
