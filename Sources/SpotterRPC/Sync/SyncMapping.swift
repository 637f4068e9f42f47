import Foundation
import SpotterCore
import SpotterProto

extension Mutation {
    /// The mutation a request carries. The protocol's own fields (kind, one change) must be
    /// right, or the whole push is refused naming the field; the content is checked later,
    /// mutation by mutation.
    init(_ proto: Spotter_V1_Mutation, path: String) throws(SpotterError) {
        guard let kind = SyncKind(proto: proto.kind) else { throw .invalid(path + "kind", "is required") }
        let change: Change
        switch proto.change {
        case .workout(let input): change = .put(.workout(try WorkoutDraft(input, prefix: path + "workout.")))
        case .template(let input): change = .put(.template(try TemplateDraft(input, prefix: path + "template.")))
        case .exercise(let input): change = .put(.exercise(try ExerciseDraft(input, prefix: path + "exercise.")))
        case .program(let input): change = .put(.program(ProgramDraft(input)))
        case .profile(let settings):
            var update = ProfileUpdate(
                displayName: settings.hasDisplayName ? settings.displayName : nil,
                timeZone: settings.hasTimeZone ? settings.timeZone : nil,
                birthday: settings.hasBirthday ? settings.birthday : nil,
                emailNotifications: settings.hasEmailNotifications ? settings.emailNotifications : nil)
            if settings.hasUnit {
                guard let unit = WeightUnit(settings.unit) else {
                    throw .invalid(path + "profile.unit", "must be KG or LB")
                }
                update.unit = unit
            }
            change = .put(.profile(update))
        case .measurement(let input):
            change = .put(.measurement(try MeasurementDraft(input, prefix: path + "measurement.")))
        case .delete(true): change = .delete
        case .delete(false):
            throw .invalid(path + "delete", "must be true to delete the object; send its content to change it")
        case nil:
            throw .invalid(
                path + "change", "must be one of workout, template, exercise, program, profile, measurement or delete")
        }
        // The message as sent, with deterministic field order: a replay of it has the same digest.
        let bytes: [UInt8]? = try? proto.serializedBytes()
        self.init(
            id: proto.mutationID, kind: kind, objectID: proto.objectID, baseVersion: proto.baseVersion, change: change,
            fingerprint: bytes.map(Token.digest))
    }
}

extension Spotter_V1_MutationResult {
    init(_ result: MutationResult) {
        self.init()
        mutationID = result.mutationID
        status = result.status.proto()
        kind = result.kind.proto()
        objectID = result.objectID?.lowercasedString ?? ""
        version = result.version
        baseVersion = result.baseVersion
        serverDeleted = result.serverDeleted
        violations = result.violations.map { violation in
            .with {
                $0.field = violation.field
                $0.reason = violation.reason
            }
        }
        message = result.message
    }
}

extension Spotter_V1_Device {
    init(_ device: Device) {
        self.init()
        deviceID = device.id.description
        label = device.label
        lastMutationID = device.lastMutationID
        createdAt = Spotter_V1_Timestamp(device.createdAt)
    }
}

extension Spotter_V1_SyncChange {
    /// Weights in `unit`; tier expiry as of `now`.
    init(_ change: SyncChange, unit: WeightUnit, now: Date) {
        self.init()
        kind = change.kind.proto()
        objectID = change.objectID.lowercasedString
        seq = change.seq
        switch change.object {
        case .workout(let workout): self.workout = Spotter_V1_Workout(workout, unit: unit)
        case .template(let template): self.template = Spotter_V1_Template(template, unit: unit)
        case .exercise(let exercise): self.exercise = Spotter_V1_Exercise(exercise)
        case .program(let program): self.program = Spotter_V1_Program(program)
        case .profile(let profile): self.profile = Spotter_V1_Profile(profile, now: now)
        case .follow(let follow): self.follow = Spotter_V1_FollowedProgram(follow)
        case .comment(let comment): self.comment = Spotter_V1_Comment(comment)
        case .assignment(let plan):
            assignment = .with {
                $0.assignment = Spotter_V1_Assignment(plan.assignment)
                $0.templates = plan.templates.map { Spotter_V1_Template($0, unit: unit) }
                if let program = plan.program { $0.program = Spotter_V1_Program(program) }
            }
        case .achievement(let achievement):
            self.achievement = Spotter_V1_Achievement(achievement, id: change.objectID)
        case .measurement(let measurement): self.measurement = Spotter_V1_BodyMeasurement(measurement, unit: unit)
        case nil: break  // A tombstone.
        }
    }
}
