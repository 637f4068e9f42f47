import Foundation
import SpotterCore

/// A coach (`carla`, Coach Pro) with one client (`lena`) who shares everything and trained on three
/// days, a template and a program: what the portal's tests and screenshots show. Passwords are
/// `long enough <username>`.
public struct PortalDemo: Sendable {
    public let coach: Principal
    public let lifter: Principal
    public let workouts: [Workout]
    public let template: Template
    public let program: Program

    public var client: String { lifter.tenantID.description }

    public static func seed(
        _ database: TestDatabase, coaching: CoachingService, training: TrainingServices, now: Date,
        lifterName: String = "Lena Marsh", workoutNotes: String = "Felt strong; last set slow."
    ) async throws -> PortalDemo {
        let coach = try await database.lifter("carla", kind: .coach)
        let lifter = try await database.lifter("lena")
        try await database.asOwner { connection in
            try await connection.query(
                """
                UPDATE tenants SET tier = 'coach_pro', display_name = 'Carla Diaz',
                    bio = 'Powerlifting coach since 2015. I write programs around your week and read every set you log.',
                    specialities = '{powerlifting,meet prep,beginners}'
                WHERE tenant_id = $1
                """,
                [coach.tenantID.rawValue])
            try await connection.query(
                "UPDATE tenants SET display_name = $2, tier = 'pro' WHERE tenant_id = $1",
                [lifter.tenantID.rawValue, lifterName])
            try await connection.query(
                "UPDATE accounts SET email_verified_at = now() WHERE tenant_id = ANY($1::uuid[])",
                [[coach.tenantID.rawValue, lifter.tenantID.rawValue]])
        }
        try await coaching.link(coach, lifter, scopes: Scope.allCases.map(\.rawValue))
        var workouts: [Workout] = []
        for (day, kilograms) in [(9.0, 100.0), (5.0, 105.0), (2.0, 110.0)] {
            var draft = workoutDraft(
                "Squat day \(Int(kilograms))", at: now.addingTimeInterval(-day * 86_400),
                exercises: [Catalog.squat, Catalog.benchPress], kilograms: kilograms, rpe: 8)
            draft.notes = workoutNotes
            workouts.append(try await training.workouts.log(lifter, id: UUID().uuidString, draft))
        }
        for (day, kilograms, note) in [(9.0, 81.2, ""), (5.0, 80.6, ""), (2.0, 80.1, "after a rest day")] {
            let date = CivilDate(day: Int((now.timeIntervalSince1970 / 86_400 - day).rounded(.down))).text
            _ = try await training.body.record(
                lifter, id: "",
                MeasurementDraft(metric: "body_weight", measuredOn: date, value: kilograms, note: note))
        }
        let template = try await training.templates.create(
            coach, id: "",
            TemplateDraft(
                name: "Heavy lower",
                items: [
                    TemplateItemDraft(
                        exerciseID: Catalog.squat.description, targetSets: 5, repsMin: 3, repsMax: 5, targetRPE: 8,
                        restSeconds: 180, targetPercentOfMax: 80),
                    TemplateItemDraft(
                        exerciseID: Catalog.deadlift.description, targetSets: 3, repsMin: 5,
                        targetWeight: WeightDraft(value: 140, unit: .kg)),
                ]))
        let program = try await coaching.createProgram(
            coach, id: "",
            ProgramDraft(
                name: "Strength block", weeks: 2,
                days: [
                    .init(week: 1, weekday: 1, templateID: template.id.description),
                    .init(week: 1, weekday: 4, templateID: template.id.description),
                    .init(week: 2, weekday: 1, templateID: template.id.description),
                ]))
        return PortalDemo(coach: coach, lifter: lifter, workouts: workouts, template: template, program: program)
    }
}
