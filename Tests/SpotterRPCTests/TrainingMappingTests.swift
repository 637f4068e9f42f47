import SpotterCore
import SpotterProto
import Testing

@testable import SpotterRPC

@Suite("Training mapping")
struct TrainingMappingTests {
    @Test("a weight goes on the wire as the Double nearest its value in the lifter's unit")
    func weightOnTheWire() {
        #expect(Spotter_V1_Weight(Mass(micrograms: 58_780_000), .kg).value == 58.78)
        #expect(Spotter_V1_Weight(Mass(micrograms: 70_000), .kg).value == 0.07)
        #expect(Spotter_V1_Weight(kilograms: 102.0582, .lb).value == 225)
        #expect(Spotter_V1_Weight(Mass(micrograms: 58_780_000), .kg).unit == .kg)
    }

    @Test("a set type or section this server has no value for is refused naming every such field, not taken as unset")
    func unknownEnumValues() throws {
        var workout = Spotter_V1_WorkoutInput()
        workout.name = "Squat day"
        var exercise = Spotter_V1_WorkoutExerciseInput()
        exercise.section = Spotter_V1_WorkoutSection(rawValue: 7)!
        var set = Spotter_V1_SetInput()
        set.reps = 5
        set.type = Spotter_V1_SetType(rawValue: 9)!
        exercise.sets = [Spotter_V1_SetInput(), set]
        workout.exercises = [exercise]
        // Named first, then with every other problem of the request (it named the enums alone).
        let refused = #expect(throws: SpotterError.self) { try WorkoutDraft(workout) }
        guard case .invalidArgument(let violations) = refused else {
            Issue.record("\(String(describing: refused))")
            return
        }
        #expect(
            Array(violations.prefix(2)) == [
                FieldViolation(
                    field: "workout.exercises[0].sets[1].type",
                    reason: "must be one of its values, 1 to 4, or unset for WORKING; not 9"),
                FieldViolation(
                    field: "workout.exercises[0].section",
                    reason: "must be one of its values, 1 to 3, or unset for MAIN; not 7"),
            ])
        let fields = violations.map(\.field)
        #expect(
            fields.contains("workout.started_at") && fields.contains("workout.exercises[0].exercise_id"), "\(fields)")
        #expect(fields.filter { $0 == "workout.exercises[0].sets[1].type" }.count == 1, "named once")

        // Unset and known values are what they were.
        workout.exercises[0].section = .coolDown
        workout.exercises[0].sets[1].type = .warmUp
        let draft = try WorkoutDraft(workout)
        #expect(draft.exercises[0].section == .coolDown)
        #expect(draft.exercises[0].sets.map(\.type) == [nil, .warmUp])

        var mutation = Spotter_V1_Mutation()
        mutation.kind = .template
        var template = Spotter_V1_TemplateInput()
        var item = Spotter_V1_TemplateItemInput()
        item.section = Spotter_V1_WorkoutSection(rawValue: 5)!
        template.items = [item, item]
        mutation.template = template
        #expect(
            throws: SpotterError.invalidArgument([
                FieldViolation(
                    field: "mutations[2].template.items[0].section",
                    reason: "must be one of its values, 1 to 3, or unset for MAIN; not 5"),
                FieldViolation(
                    field: "mutations[2].template.items[1].section",
                    reason: "must be one of its values, 1 to 3, or unset for MAIN; not 5"),
            ])
        ) { try Mutation(mutation, path: "mutations[2].") }
        // A custom exercise's category, muscle group and equipment: named, not "is required".
        var custom = Spotter_V1_ExerciseInput()
        custom.name = "Zercher squat"
        custom.category = Spotter_V1_ExerciseCategory(rawValue: 42)!
        custom.muscleGroup = .quadriceps
        custom.equipment = Spotter_V1_Equipment(rawValue: 77)!
        #expect(
            throws: SpotterError.invalidArgument([
                FieldViolation(field: "exercise.category", reason: "must be one of its values, 1 to 9; not 42"),
                FieldViolation(field: "exercise.equipment", reason: "must be one of its values, 1 to 8; not 77"),
            ])
        ) { try ExerciseDraft(custom) }
        // With a name too long: both said at once.
        custom.name = String(repeating: "z", count: 101)
        let both = #expect(throws: SpotterError.self) { try ExerciseDraft(custom) }
        guard case .invalidArgument(let named) = both else { return }
        #expect(Set(named.map(\.field)) == ["exercise.category", "exercise.equipment", "exercise.name"], "\(named)")
        // A measurement's unit: named, not read as the lifter's own.
        var measurement = Spotter_V1_MeasurementInput()
        measurement.unit = Spotter_V1_BodyUnit(rawValue: 12)!
        #expect(
            throws: SpotterError.invalid(
                "mutations[1].measurement.unit",
                "must be one of its values, 1 to \(BodyUnit.allCases.count), or unset for your unit; not 12")
        ) { try MeasurementDraft(measurement, prefix: "mutations[1].measurement.") }
        #expect(
            throws: SpotterError.invalid(
                "actual.type", "must be one of its values, 1 to 4, or unset for WORKING; not 9")
        ) {
            try SetDraft(set, "actual")
        }
    }
}
