import Foundation

/// The lifter's training services wired to their stores: the one place that says which store each
/// service reads.
public struct TrainingServices: Sendable {
    public let exercises: ExerciseService
    public let workouts: WorkoutService
    public let templates: TemplateService
    public let progress: ProgressService
    public let transfer: TransferService
    public let activity: ActivityService
    public let body: BodyService
    /// Where the services read a tenant's time zone, unit and tier.
    public let contexts: any TenantContextStore

    public init(
        exerciseStore: any ExerciseStore,
        workoutStore: any WorkoutStore,
        templateStore: any TemplateStore,
        progressStore: any ProgressStore,
        transferStore: any TransferStore,
        activityStore: any ActivityStore,
        bodyStore: any BodyStore,
        contexts: any TenantContextStore,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        exercises = ExerciseService(store: exerciseStore, now: now)
        workouts = WorkoutService(
            store: workoutStore, templates: templateStore, progress: progressStore, contexts: contexts, now: now)
        templates = TemplateService(store: templateStore, now: now)
        progress = ProgressService(store: progressStore, exercises: exerciseStore, contexts: contexts, now: now)
        body = BodyService(store: bodyStore, contexts: contexts, now: now)
        activity = ActivityService(store: activityStore, progress: progressStore, contexts: contexts, now: now)
        self.contexts = contexts
        transfer = TransferService(
            store: transferStore, exercises: exercises, templates: templates, body: body, contexts: contexts,
            now: now)
    }
}
