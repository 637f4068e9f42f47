import Foundation
import SpotterCore
import SpotterProto
import SwiftProtobuf

/// What each fuzz target runs on one input: everything a request goes through before the database,
/// exactly as the handlers do it: protobuf decoding, the NUL check, the mapping to drafts and their
/// validation. A thrown error is a refusal (fine); a trap, an overflow or a sanitizer report is a
/// bug. `spotter-fuzz` runs these (and its own target for the libpq row decoders) under libFuzzer
/// (`scripts/fuzz.sh`), and replays the committed corpora in the test suite.
public enum FuzzTargets {
    public static let names = ["workout", "template", "program", "push", "tokens", "import"]

    /// Runs `target` on `data`; `false` for an unknown target.
    @discardableResult
    public static func run(_ target: String, _ data: [UInt8]) -> Bool {
        switch target {
        case "workout": workout(data)
        case "template": template(data)
        case "program": program(data)
        case "push": push(data)
        case "tokens": tokens(data)
        case "import": importFile(data)
        default: return false
        }
        return true
    }

    private static let now = Date(timeIntervalSince1970: 1_800_000_000)

    private static func decoded<M: SwiftProtobuf.Message>(_: M.Type, _ data: [UInt8]) -> M? {
        guard let message = try? M(serializedBytes: data), (try? ZeroByteCheck.check(message)) != nil else {
            return nil
        }
        return message
    }

    /// LogWorkout and UpdateWorkout's content.
    static func workout(_ data: [UInt8]) {
        guard let request = decoded(Spotter_V1_LogWorkoutRequest.self, data) else { return }
        _ = try? WorkoutDraft(request.workout).validated(now: now)
        _ = WorkoutID(request.workoutID)
    }

    /// CreateTemplate and a custom exercise.
    static func template(_ data: [UInt8]) {
        guard let request = decoded(Spotter_V1_CreateTemplateRequest.self, data) else { return }
        _ = try? TemplateDraft(request.template).validated()
        if let exercise = decoded(Spotter_V1_CreateExerciseRequest.self, data) {
            _ = try? ExerciseDraft(exercise.exercise).validated()
        }
    }

    static func program(_ data: [UInt8]) {
        guard let request = decoded(Spotter_V1_CreateProgramRequest.self, data) else { return }
        _ = try? ProgramDraft(request.program).validated()
    }

    /// A sync push: the batch's shape, then each mutation's content as `apply` would validate it.
    static func push(_ data: [UInt8]) {
        guard let request = decoded(Spotter_V1_PushRequest.self, data) else { return }
        var mutations: [Mutation] = []
        for (index, proto) in request.mutations.enumerated() {
            guard let mutation = try? Mutation(proto, path: "mutations[\(index)].") else { return }
            mutations.append(mutation)
        }
        guard (try? SyncService.checkBatch(deviceID: request.deviceID, mutations)) != nil else { return }
        for mutation in mutations {
            guard case .put(let object) = mutation.change else { continue }
            switch object {
            case .workout(let draft): _ = try? draft.validated(now: now)
            case .template(let draft): _ = try? draft.validated()
            case .exercise(let draft): _ = try? draft.validated()
            case .program(let draft): _ = try? draft.validated()
            case .profile: break
            case .measurement(let draft): _ = try? draft.validated(unit: .kg, now: now)
            }
        }
    }

    /// A file to import, read as each format: CSV parsing, dates, numbers, the JSON document.
    static func importFile(_ data: [UInt8]) {
        for format in ImportFormat.allCases {
            _ = try? TransferService.inspect(Data(data), format: format)
        }
    }

    /// Page tokens and sync cursors, as text a client sends back.
    static func tokens(_ data: [UInt8]) {
        let text = String(decoding: data, as: UTF8.self)
        let tenant = TenantID(rawValue: UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)))
        _ = try? SyncCursor.decode(text, for: tenant)
        // As sent, and as the parts of a token for the empty query: the cursors' parsers see it.
        let token = PageToken.encode(text.split(separator: "\n").map(String.init) + [PageToken.digest([])])
        for token in [text, token] {
            _ = try? PageToken.cursor(HistoryCursor.self, from: token, query: [])
            _ = try? PageToken.cursor(NameCursor<TemplateID>.self, from: token, query: [])
            _ = try? PageToken.cursor(ExerciseResultCursor.self, from: token, query: [])
            _ = try? PageToken.cursor(AccessLogCursor.self, from: token, query: [])
        }
    }
}
