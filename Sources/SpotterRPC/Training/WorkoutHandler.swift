import GRPCCore
import SpotterCore
import SpotterProto

/// `spotter.v1.WorkoutService`: logging, editing and history.
public struct WorkoutHandler: Spotter_V1_WorkoutService.SimpleServiceProtocol {
    private let workouts: WorkoutService

    public init(workouts: WorkoutService) {
        self.workouts = workouts
    }

    public func logWorkout(request: Spotter_V1_LogWorkoutRequest, context: ServerContext) async throws
        -> Spotter_V1_Workout
    {
        let (principal, tenant) = try RequestContext.tenant()
        let workout = try await workouts.log(principal, id: request.workoutID, try WorkoutDraft(request.workout))
        return Spotter_V1_Workout(workout, unit: tenant.unit)
    }

    public func prefillFromTemplate(request: Spotter_V1_PrefillFromTemplateRequest, context: ServerContext)
        async throws -> Spotter_V1_WorkoutInput
    {
        let (principal, tenant) = try RequestContext.tenant()
        let content = try await workouts.prefill(
            principal, templateID: request.templateID,
            startedAt: request.hasStartedAt ? request.startedAt.date("started_at") : nil)
        return Spotter_V1_WorkoutInput(content, unit: tenant.unit)
    }

    public func getWorkout(request: Spotter_V1_GetWorkoutRequest, context: ServerContext) async throws
        -> Spotter_V1_Workout
    {
        let (principal, tenant) = try RequestContext.tenant()
        return Spotter_V1_Workout(try await workouts.get(principal, id: request.workoutID), unit: tenant.unit)
    }

    public func replaceWorkout(request: Spotter_V1_ReplaceWorkoutRequest, context: ServerContext) async throws
        -> Spotter_V1_Workout
    {
        let (principal, tenant) = try RequestContext.tenant()
        let workout = try await workouts.replace(
            principal,
            id: request.workoutID,
            try WorkoutDraft(request.workout),
            expectedVersion: request.hasExpectedVersion ? request.expectedVersion : nil
        )
        return Spotter_V1_Workout(workout, unit: tenant.unit)
    }

    public func updateWorkout(request: Spotter_V1_UpdateWorkoutRequest, context: ServerContext) async throws
        -> Spotter_V1_Workout
    {
        let (principal, tenant) = try RequestContext.tenant()
        let patch = try WorkoutPatch(
            name: request.hasName ? request.name : nil,
            startedAt: request.hasStartedAt ? request.startedAt.date("started_at") : nil,
            durationSeconds: request.hasDurationSeconds ? Int(request.durationSeconds) : nil,
            notes: request.hasNotes ? request.notes : nil
        )
        let workout = try await workouts.update(
            principal, id: request.workoutID, patch,
            expectedVersion: request.hasExpectedVersion ? request.expectedVersion : nil)
        return Spotter_V1_Workout(workout, unit: tenant.unit)
    }

    public func deleteWorkout(request: Spotter_V1_DeleteWorkoutRequest, context: ServerContext) async throws
        -> Spotter_V1_DeleteWorkoutResponse
    {
        try await workouts.delete(try RequestContext.principal(), id: request.workoutID)
        return Spotter_V1_DeleteWorkoutResponse()
    }

    public func listWorkouts(request: Spotter_V1_ListWorkoutsRequest, context: ServerContext) async throws
        -> Spotter_V1_ListWorkoutsResponse
    {
        let (principal, tenant) = try RequestContext.tenant()
        let page = try await workouts.history(
            principal,
            from: request.hasFrom ? request.from.date("from") : nil,
            to: request.hasTo ? request.to.date("to") : nil,
            text: request.query,
            pageSize: Int(request.page.pageSize),
            pageToken: request.page.pageToken
        )
        return Spotter_V1_ListWorkoutsResponse(page, unit: tenant.unit)
    }
}

extension Spotter_V1_ListWorkoutsResponse {
    init(_ page: Page<WorkoutEntry>, unit: WeightUnit) {
        self = .with {
            $0.workouts = page.items.map { entry in
                .with {
                    $0.workoutID = entry.id.description
                    $0.name = entry.name
                    $0.startedAt = Spotter_V1_Timestamp(entry.startedAt)
                    $0.durationSeconds = Int32(entry.durationSeconds)
                    if let summary = entry.summary { $0.summary = Spotter_V1_WorkoutSummary(summary, unit: unit) }
                }
            }
            $0.nextPageToken = page.nextToken
        }
    }
}
