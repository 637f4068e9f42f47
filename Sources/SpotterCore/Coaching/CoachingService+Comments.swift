import Foundation

/// Comments on a lifter's workouts: a coach with the details scope and the lifter write them; both
/// read the thread; the lifter may delete any comment on their workouts, a coach their own.
extension CoachingService {
    static let commentNotFound = SpotterError.notFound("comment not found")

    /// A coach comments on a client's workout, or on one set of it.
    public func commentAsCoach(
        _ principal: Principal, client: String, workoutID: String, exerciseIndex: Int?, setIndex: Int?, body: String
    ) async throws -> WorkoutComment {
        try await reading(
            principal, client: client, needs: .details, kind: .details, method: "CommentOnWorkout",
            workout: workoutID
        ) { view, _, _ in
            try await comment(view, author: principal.tenantID, side: .coach, workoutID, exerciseIndex, setIndex, body)
        }
    }

    /// The lifter comments on (or replies under) their own workout.
    public func comment(
        _ principal: Principal, workoutID: String, exerciseIndex: Int?, setIndex: Int?, body: String
    ) async throws -> WorkoutComment {
        _ = try await requireKind(.lifter, principal)
        return try await comment(
            principal, author: principal.tenantID, side: .lifter, workoutID, exerciseIndex, setIndex, body)
    }

    private func comment(
        _ principal: Principal, author: TenantID, side: LinkSide, _ workoutID: String, _ exerciseIndex: Int?,
        _ setIndex: Int?, _ body: String
    ) async throws -> WorkoutComment {
        let body = body.trimmingWhitespacesAndNewlines()
        var validator = Validator()
        validator.check(!body.isEmpty, "body", "is required")
        validator.check(body.storedLength <= 2000, "body", "must be at most 2000 characters")
        if let problem = CredentialRules.directionProblem(body) { validator.add("body", problem) }
        validator.check(
            (exerciseIndex == nil) == (setIndex == nil), "set_index", "exercise_index and set_index go together")
        try validator.validate()
        let workout = try await training.workouts.get(principal, id: workoutID)
        if let exerciseIndex, let setIndex {
            guard workout.content.exercises.indices.contains(exerciseIndex) else {
                throw SpotterError.invalid(
                    "exercise_index",
                    "must be from 0 to \(workout.content.exercises.count - 1): the workout has \(DisplayFormat.count(workout.content.exercises.count, "exercise"))"
                )
            }
            let sets = workout.content.exercises[exerciseIndex].sets
            guard sets.indices.contains(setIndex) else {
                throw SpotterError.invalid(
                    "set_index",
                    "must be from 0 to \(sets.count - 1): exercise \(exerciseIndex) has \(DisplayFormat.count(sets.count, "set"))"
                )
            }
        }
        let added = try await store.addComment(
            principal,
            WorkoutComment(
                id: UUID(), workoutID: workout.id, exerciseIndex: exerciseIndex, setIndex: setIndex, authorID: author,
                authorSide: side, authorName: "", body: body, createdAt: now()),
            workoutVersion: exerciseIndex == nil ? nil : workout.version)
        if let added { return added }
        // Deleted meanwhile (this says so), or replaced, which may have moved the set.
        _ = try await training.workouts.get(principal, id: workoutID)
        throw SpotterError.failedPrecondition(
            "the workout was changed while the comment was sent; look at it again and comment on the set as it is now")
    }

    /// The thread on a client's workout (details scope).
    public func clientComments(_ principal: Principal, client: String, workoutID: String) async throws
        -> [WorkoutComment]
    {
        try await reading(
            principal, client: client, needs: .details, kind: .details, method: "ListClientComments", workout: workoutID
        ) {
            view, _, _ in try await comments(view, workoutID: workoutID)
        }
    }

    /// One of a client's workouts and its thread, as one read (details scope): the portal's workout
    /// page, logged once like `GetClientWorkout`.
    public func clientWorkoutThread(_ principal: Principal, client: String, workoutID: String) async throws
        -> (workout: Workout, comments: [WorkoutComment])
    {
        try await reading(
            principal, client: client, needs: .details, kind: .details, method: "GetClientWorkout", workout: workoutID
        ) {
            view, _, _ in
            let workout = try await training.workouts.get(view, id: workoutID)
            return (workout, try await store.comments(view, workout.id))
        }
    }

    /// The thread on the lifter's own workout, oldest first.
    public func comments(_ principal: Principal, workoutID: String) async throws -> [WorkoutComment] {
        let workout = try await training.workouts.get(principal, id: workoutID)
        return try await store.comments(principal, workout.id)
    }

    /// The lifter deletes any comment on their workouts.
    public func deleteComment(_ principal: Principal, id: String) async throws {
        _ = try await requireKind(.lifter, principal)
        try await deleteComment(principal, Self.commentID(id))
    }

    /// A coach deletes one of their own comments on a client's workout (details scope).
    public func deleteCommentAsCoach(_ principal: Principal, client: String, id: String) async throws {
        let commentID = try Self.commentID(id)
        try await reading(principal, client: client, needs: .details, kind: .details, method: "DeleteClientComment") {
            view, _, _ in try await deleteComment(view, commentID)
        }
    }

    private func deleteComment(_ principal: Principal, _ id: UUID) async throws {
        switch try await store.deleteComment(principal, id) {
        case .deleted: return
        // A comment the coach sees on the workout (the lifter's): saying so tells nothing new.
        case .notTheAuthor: throw SpotterError.permissionDenied("you can delete only your own comments")
        case .notFound: throw Self.commentNotFound
        }
    }

    private static func commentID(_ text: String) throws(SpotterError) -> UUID {
        guard !text.isEmpty else { throw .invalid("comment_id", "is required") }
        guard let id = UUID(hexadecimal: text) else { throw .invalid("comment_id", "must be a UUID") }
        return id
    }
}
