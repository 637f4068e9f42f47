import Foundation

/// Listing the catalog and managing the tenant's custom exercises.
public struct ExerciseService: Sendable {
    private let store: any ExerciseStore
    private let now: @Sendable () -> Date

    public init(store: any ExerciseStore, now: @escaping @Sendable () -> Date = { Date() }) {
        self.store = store
        self.now = now
    }

    /// One page of exercises by name.
    public func list(_ principal: Principal, _ filter: ExerciseFilter, pageSize: Int, pageToken: String)
        async throws -> Page<Exercise>
    {
        var filter = filter
        filter.query = filter.query.trimmingWhitespacesAndNewlines().lowercased()
        guard filter.query.count <= 100 else { throw SpotterError.invalid("query", "must be at most 100 characters") }
        let limit = try PageToken.size(pageSize)
        let query = [principal.tenantID.description] + filter.tokenQuery
        let cursor = try PageToken.cursor(ExerciseCursor.self, from: pageToken, query: query)
        let items = try await store.exercises(principal, filter, after: cursor, limit: limit + 1)
        return Page(fetched: items, limit: limit, query: query) {
            ExerciseCursor(name: $0.name.lowercased(), id: $0.id)
        }
    }

    public func get(_ principal: Principal, _ id: String) async throws -> Exercise {
        let id = try Self.id(id)
        guard let exercise = try await store.exercise(principal, id) else { throw Self.notFound }
        return exercise
    }

    /// Creates a custom exercise, under the client's id when it sent one.
    public func create(_ principal: Principal, id: String, _ draft: ExerciseDraft) async throws -> Exercise {
        let exerciseID = id.isEmpty ? ExerciseID.random() : try Self.id(id)
        let input = try draft.validated()
        try await refuseBuiltInName(principal, input.name)
        return try await store.createExercise(principal, exerciseID, input, now: now())
    }

    public func update(_ principal: Principal, id: String, _ draft: ExerciseDraft, expectedVersion: Int64?)
        async throws -> Exercise
    {
        let exerciseID = try Self.id(id)
        let input = try draft.validated()
        // A name kept as it is stays allowed (an exercise named so before this rule).
        if try await store.exercise(principal, exerciseID)?.name.lowercased() != input.name.lowercased() {
            try await refuseBuiltInName(principal, input.name)
        }
        return try await store.updateExercise(
            principal, exerciseID, input, expectedVersion: expectedVersion, now: now())
    }

    public func archive(_ principal: Principal, id: String, archived: Bool) async throws -> Exercise {
        try await store.archiveExercise(principal, try Self.id(id), archived: archived, now: now())
    }

    public func delete(_ principal: Principal, id: String) async throws {
        guard try await store.deleteExercise(principal, try Self.id(id), now: now()) else { throw Self.notFound }
    }

    /// `alreadyExists` naming `exercise.name` and the built-in exercise when one has `name` ignoring
    /// case, spaces and punctuation: a picker listing "Pull-Up" and "Pull Up" (or two "Barbell Back
    /// Squat") cannot tell them apart.
    private func refuseBuiltInName(_ principal: Principal, _ name: String) async throws {
        if let builtIn = try await store.builtInExercise(principal, named: name) {
            throw SpotterError.alreadyExists(
                field: "exercise.name",
                reason: "is the name of the built-in exercise “\(builtIn.name)”; use it, or choose another name")
        }
    }

    static let notFound = SpotterError.notFound("exercise not found")

    static func id(_ text: String, field: String = "exercise_id") throws(SpotterError) -> ExerciseID {
        guard !text.isEmpty else { throw .invalid(field, "is required") }
        guard let id = ExerciseID(text) else { throw .invalid(field, "must be a UUID") }
        return id
    }
}

/// A refusal that names every wrong field at once, the exercises that are none the caller may use
/// among them: those only the store can tell, and it checks them once the rest is right.
enum ExerciseRefusals {
    /// Runs `validate`; when it refuses, asks `refusals` about the exercises of `exerciseIDs` (by
    /// their index; ids that are no UUID are refused already) and adds what it answers to the
    /// refusal. A valid draft's exercises are left to the store, in its own transaction.
    static func naming<T>(
        _ exerciseIDs: [String], _ validate: () throws -> T,
        refusals: ([Int: ExerciseID]) async throws -> [FieldViolation]
    ) async throws -> T {
        do {
            return try validate()
        } catch SpotterError.invalidArgument(let violations) {
            var ids: [Int: ExerciseID] = [:]
            for (index, text) in exerciseIDs.enumerated() {
                if let id = ExerciseID(text) { ids[index] = id }
            }
            let named = Set(violations.map(\.field))
            let more = try await refusals(ids).filter { !named.contains($0.field) }
            throw SpotterError.invalidArgument(violations + more)
        }
    }
}
