import SpotterCore
import SpotterProto
import SwiftProtobuf
import Testing

@testable import SpotterRPC

@Suite("NUL characters in requests")
struct ZeroByteCheckTests {
    @Test("clean messages pass, however deep their strings")
    func clean() throws {
        try ZeroByteCheck.check(
            Spotter_V1_LogWorkoutRequest.with {
                $0.workout.name = "Legs"
                $0.workout.exercises = [.with { $0.sets = [.with { $0.note = "fine" }] }]
            })
    }

    @Test(
        "a NUL anywhere is invalidArgument naming its path",
        arguments: [
            (
                Spotter_V1_RegisterRequest.with { $0.email = "bob\0@evil.co" } as any SwiftProtobuf.Message,
                "email"
            ),
            (Spotter_V1_SubmitFeedbackRequest.with { $0.subject = "\0x" }, "subject"),
            (
                Spotter_V1_LogWorkoutRequest.with {
                    $0.workout.exercises = [.with { $0.sets = [.init(), .with { $0.note = "a\0b" }] }]
                },
                "workout.exercises[0].sets[1].note"
            ),
            (Spotter_V1_SetScopesRequest.with { $0.scopes = ["history", "de\0tails"] }, "scopes[1]"),
        ])
    func refused(message: any SwiftProtobuf.Message, field: String) {
        #expect(throws: SpotterError.invalid(field, "must not contain a NUL character")) {
            try ZeroByteCheck.check(message)
        }
    }
}
