import Foundation
import Postgres
import SpotterCore

/// An object of the change feed: its kind and id.
struct SyncKey: Hashable {
    var kind: SyncKind
    var id: UUID

    init(_ kind: SyncKind, _ id: UUID) {
        self.kind = kind
        self.id = id
    }
}

/// Reads the current state of the objects a page of the change feed names, a few statements per
/// kind whatever the number of objects. An object the tenant no longer has, or may no longer see,
/// is absent from the answer: the pull sends a tombstone for it.
enum SyncObjectSQL {
    static func load(_ principal: Principal, _ keys: [(SyncKind, UUID)], _ connection: PostgresConnection)
        async throws -> [SyncKey: SyncObject]
    {
        let tenant = principal.tenantID
        var ids: [SyncKind: [UUID]] = [:]
        for (kind, id) in keys { ids[kind, default: []].append(id) }
        var objects: [SyncKey: SyncObject] = [:]
        for (kind, ids) in ids {
            switch kind {
            case .workout:
                for workout in try await WorkoutSQL.load(tenant, only: ids.map(WorkoutID.init(rawValue:)), connection) {
                    objects[SyncKey(kind, workout.id.rawValue)] = .workout(workout)
                }
            case .template:
                let templates = try await PostgresTemplateStore.load(
                    tenant, ids.map(TemplateID.init(rawValue:)), connection)
                for template in templates {
                    objects[SyncKey(kind, template.id.rawValue)] = .template(template)
                }
            case .exercise:
                for exercise in try await exercises(tenant, ids, connection) {
                    objects[SyncKey(kind, exercise.id.rawValue)] = .exercise(exercise)
                }
            case .program:
                for program in try await ProgramSQL.load(ids.map { (tenant, ProgramID(rawValue: $0)) }, connection) {
                    objects[SyncKey(kind, program.id.rawValue)] = .program(program)
                }
            case .profile:
                objects[SyncKey(kind, tenant.rawValue)] = .profile(
                    try await PostgresProfileStore.load(principal, connection))
            case .follow:
                if let follow = try await PostgresCoachingStore.followed(tenant, connection) {
                    objects[SyncKey(kind, tenant.rawValue)] = .follow(follow)
                }
            case .comment:
                let comments = try await connection.query(
                    PostgresCoachingStore.commentSelect + " WHERE c.tenant_id = $1 AND c.comment_id = ANY($2::uuid[])",
                    [tenant.rawValue, ids]
                )
                for row in comments {
                    let comment = try PostgresCoachingStore.decodeComment(row)
                    objects[SyncKey(kind, comment.id)] = .comment(comment)
                }
            case .assignment:
                for plan in try await assignedPlans(tenant, ids, connection) {
                    objects[SyncKey(kind, plan.assignment.id)] = .assignment(plan)
                }
            case .measurement:
                for measurement in try await PostgresBodyStore.live(tenant, ids, connection) {
                    objects[SyncKey(kind, measurement.id.rawValue)] = .measurement(measurement)
                }
            case .achievement:
                for (id, achievement) in try await PostgresActivityStore.achievements(tenant, ids, connection) {
                    objects[SyncKey(kind, id)] = .achievement(achievement)
                }
            }
        }
        return objects
    }

    /// Live custom exercises among `ids`.
    private static func exercises(_ tenant: TenantID, _ ids: [UUID], _ connection: PostgresConnection) async throws
        -> [Exercise]
    {
        try await connection.query(
            ExerciseSQL.custom + " WHERE tenant_id = $1 AND exercise_id = ANY($2::uuid[]) AND deleted_at IS NULL",
            [tenant.rawValue, ids]
        ).map(ExerciseSQL.decode)
    }

    /// The lifter's open assignments among `ids` (row-level security shows only those of actively
    /// linked coaches), each with its template or its program and the program's templates.
    private static func assignedPlans(_ lifter: TenantID, _ ids: [UUID], _ connection: PostgresConnection)
        async throws -> [AssignedPlan]
    {
        let assignments = try await connection.query(
            PostgresCoachingStore.assignmentSelect + """
                 WHERE a.lifter_id = $1 AND a.assignment_id = ANY($2::uuid[]) AND a.removed_at IS NULL
                  AND coalesce(t.deleted_at, p.deleted_at) IS NULL
                """,
            [lifter.rawValue, ids]
        ).map(PostgresCoachingStore.decodeAssignment)
        var plans: [AssignedPlan] = []
        for assignment in assignments {
            switch assignment.item {
            case .template(let id):
                let templates = try await PostgresTemplateStore.load(assignment.coachID, [id], connection)
                plans.append(AssignedPlan(assignment: assignment, templates: templates, program: nil))
            case .program(let id):
                let program = try await ProgramSQL.load([(assignment.coachID, id)], connection).first
                let templateIDs = (program?.content.days.map(\.templateID) ?? []).uniqued()
                let templates = try await PostgresTemplateStore.load(assignment.coachID, templateIDs, connection)
                plans.append(AssignedPlan(assignment: assignment, templates: templates, program: program))
            }
        }
        return plans
    }
}
