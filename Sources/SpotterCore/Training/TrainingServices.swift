import Foundation

/// The lifter's training services wired to their stores: the one place that says which store each
/// service reads.
public struct TrainingServices: Sendable {
    public let exercises: ExerciseService
    public let workouts: WorkoutService
    public let templates: TemplateService
    public let progress: ProgressService

    public init(
        exerciseStore: any ExerciseStore,
        workoutStore: any WorkoutStore,
        templateStore: any TemplateStore,
        progressStore: any ProgressStore,
        contexts: any TenantContextStore,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        exercises = ExerciseService(store: exerciseStore, now: now)
        workouts = WorkoutService(store: workoutStore, templates: templateStore, now: now)
        templates = TemplateService(store: templateStore, now: now)
        progress = ProgressService(store: progressStore, exercises: exerciseStore, contexts: contexts, now: now)
    }
}
