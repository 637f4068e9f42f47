import GRPCCore
import SpotterCore
import SpotterProto

/// `spotter.v1.ExerciseService`: the catalog and the tenant's custom exercises.
public struct ExerciseHandler: Spotter_V1_ExerciseService.SimpleServiceProtocol {
    private let exercises: ExerciseService

    public init(exercises: ExerciseService) {
        self.exercises = exercises
    }

    public func listExercises(request: Spotter_V1_ListExercisesRequest, context: ServerContext) async throws
        -> Spotter_V1_ListExercisesResponse
    {
        let filter = ExerciseFilter(
            category: try ExerciseCategory.filter(request.category, field: "category"),
            muscleGroup: try MuscleGroup.filter(request.muscleGroup, field: "muscle_group"),
            equipment: try Equipment.filter(request.equipment, field: "equipment"),
            customOnly: request.customOnly,
            includeArchived: request.includeArchived,
            query: request.query
        )
        let page = try await exercises.list(
            try RequestContext.principal(), filter, pageSize: Int(request.page.pageSize),
            pageToken: request.page.pageToken)
        return .with {
            $0.exercises = page.items.map(Spotter_V1_Exercise.init)
            $0.nextPageToken = page.nextToken
        }
    }

    public func getExercise(request: Spotter_V1_GetExerciseRequest, context: ServerContext) async throws
        -> Spotter_V1_Exercise
    {
        Spotter_V1_Exercise(try await exercises.get(try RequestContext.principal(), request.exerciseID))
    }

    public func createExercise(request: Spotter_V1_CreateExerciseRequest, context: ServerContext) async throws
        -> Spotter_V1_Exercise
    {
        let created = try await exercises.create(
            try RequestContext.principal(), id: request.exerciseID, try ExerciseDraft(request.exercise))
        return Spotter_V1_Exercise(created)
    }

    public func updateExercise(request: Spotter_V1_UpdateExerciseRequest, context: ServerContext) async throws
        -> Spotter_V1_Exercise
    {
        let updated = try await exercises.update(
            try RequestContext.principal(),
            id: request.exerciseID,
            try ExerciseDraft(request.exercise),
            expectedVersion: request.hasExpectedVersion ? request.expectedVersion : nil
        )
        return Spotter_V1_Exercise(updated)
    }

    public func archiveExercise(request: Spotter_V1_ArchiveExerciseRequest, context: ServerContext) async throws
        -> Spotter_V1_Exercise
    {
        let archived = try await exercises.archive(
            try RequestContext.principal(), id: request.exerciseID, archived: request.archived)
        return Spotter_V1_Exercise(archived)
    }

    public func deleteExercise(request: Spotter_V1_DeleteExerciseRequest, context: ServerContext) async throws
        -> Spotter_V1_DeleteExerciseResponse
    {
        try await exercises.delete(try RequestContext.principal(), id: request.exerciseID)
        return Spotter_V1_DeleteExerciseResponse()
    }
}
