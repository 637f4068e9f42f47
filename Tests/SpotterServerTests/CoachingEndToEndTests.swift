import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2
import GRPCProtobuf
import SpotterProto
import SpotterTestSupport
import Testing

@Suite("Coaching end to end over TLS")
struct CoachingEndToEndTests {
    private let squat = "c0000000-0000-4000-8000-000000000001"
    private let bench = "c0000000-0000-4000-8000-000000000002"

    @Test("invite → accept with scopes → reads → narrowed scopes refused → program → log → comments → access log")
    func coachingFlow() async throws {
        try await TestServer.with { server in
            try await server.withClient { client in
                let coachToken = try await signUpLifter(client, "coachcora", timeZone: "UTC", kind: .coach)
                let ada = try await signUpLifter(client, "ada", timeZone: "UTC")
                let coach = Spotter_V1_CoachService.Client(wrapping: client)
                let coaching = Spotter_V1_CoachingService.Client(wrapping: client)
                let programs = Spotter_V1_ProgramService.Client(wrapping: client)
                let templates = Spotter_V1_TemplateService.Client(wrapping: client)
                let workouts = Spotter_V1_WorkoutService.Client(wrapping: client)

                // A lifter cannot use the coach's calls.
                #expect(await rpcCode { _ = try await coach.listClients(.init(), metadata: ada) } == .permissionDenied)

                let invite = try await coach.createInvite(.with { $0.note = "for Ada" }, metadata: coachToken)
                #expect(invite.code.count == 10)
                #expect(invite.link == "spotter://invite/\(invite.code)")
                let link = try await coaching.redeemInvite(
                    .with {
                        $0.code = invite.code.lowercased()
                        $0.scopes = ["history", "details", "progress"]
                    }, metadata: ada)
                #expect(link.status == .active)
                #expect(link.scopes == ["history", "details", "progress"])
                #expect(link.coachName == "coachcora")
                let adaID = link.lifterID
                let cora = link.coachID
                // The code is single use.
                #expect(
                    await rpcCode {
                        _ = try await coaching.redeemInvite(.with { $0.code = invite.code }, metadata: ada)
                    } == .notFound)

                // Ada logs a workout; the coach reads it.
                let logged = try await workouts.logWorkout(
                    .with {
                        $0.workout.name = "Heavy squat"
                        $0.workout.startedAt = .with {
                            $0.unixMicros = Int64(Date().timeIntervalSince1970 - 3600) * 1_000_000
                        }
                        $0.workout.durationSeconds = 3600
                        $0.workout.exercises = [
                            .with {
                                $0.exerciseID = squat
                                $0.sets = [
                                    .with {
                                        $0.reps = 5
                                        $0.weight = .with {
                                            $0.value = 140
                                            $0.unit = .kg
                                        }
                                        $0.note = "belt on"
                                    }
                                ]
                            }
                        ]
                    }, metadata: ada)
                let clients = try await coach.listClients(.init(), metadata: coachToken)
                #expect(clients.clients.map(\.link.lifterID) == [adaID])
                #expect(clients.clients.first?.workoutsThisWeek == 1)
                let history = try await coach.listClientWorkouts(.with { $0.clientID = adaID }, metadata: coachToken)
                #expect(history.workouts.map(\.name) == ["Heavy squat"])
                let detail = try await coach.getClientWorkout(
                    .with {
                        $0.clientID = adaID
                        $0.workoutID = logged.workoutID
                    }, metadata: coachToken)
                #expect(detail.exercises.first?.sets.first?.note == "belt on")

                // Ada narrows the scopes: the coach's very next detail read is refused.
                _ = try await coaching.setScopes(
                    .with {
                        $0.coachID = cora
                        $0.scopes = ["history"]
                    }, metadata: ada)
                do {
                    _ = try await coach.getClientWorkout(
                        .with {
                            $0.clientID = adaID
                            $0.workoutID = logged.workoutID
                        }, metadata: coachToken)
                    Issue.record("the details read should have been refused")
                } catch let error as RPCError {
                    #expect(error.code == .permissionDenied)
                    #expect(error.message.contains("details"))
                }
                let stillHistory = try await coach.listClientWorkouts(
                    .with { $0.clientID = adaID }, metadata: coachToken)
                #expect(stillHistory.workouts.map(\.name) == ["Heavy squat"])
                #expect(stillHistory.workouts.first?.hasSummary == false)

                // The coach builds a program and assigns it; Ada follows it and logs today's workout.
                let template = try await templates.createTemplate(
                    .with {
                        $0.template.name = "Coach's squat day"
                        $0.template.items = [
                            .with {
                                $0.exerciseID = squat
                                $0.targetSets = 2
                                $0.repsMin = 5
                            }
                        ]
                    }, metadata: coachToken)
                let program = try await programs.createProgram(
                    .with {
                        $0.program.name = "Squat every day"
                        $0.program.weeks = 1
                        $0.program.days = (1...7).map { weekday in
                            .with {
                                $0.week = 1
                                $0.weekday = Int32(weekday)
                                $0.templateID = template.templateID
                            }
                        }
                    }, metadata: coachToken)
                let assignment = try await coach.assign(
                    .with {
                        $0.clientID = adaID
                        $0.programID = program.programID
                        $0.note = "start Monday"
                    }, metadata: coachToken)
                #expect(assignment.name == "Squat every day")
                let received = try await coaching.listAssignments(.init(), metadata: ada)
                #expect(received.assignments.map(\.programID) == [program.programID])
                let followed = try await coaching.followProgram(
                    .with { $0.programID = program.programID }, metadata: ada)
                #expect(followed.program.days.count == 7)
                let today = try await coaching.getToday(.init(), metadata: ada)
                #expect(today.state == "training")
                #expect(today.template.templateID == template.templateID)
                #expect(today.template.version == 1)

                // The coach edits the template: Ada sees version 2 and her log records it.
                _ = try await templates.updateTemplate(
                    .with {
                        $0.templateID = template.templateID
                        $0.template.name = "Coach's squat day"
                        $0.template.items = [
                            .with {
                                $0.exerciseID = squat
                                $0.targetSets = 3
                                $0.repsMin = 5
                            }
                        ]
                    }, metadata: coachToken)
                let prefilled = try await workouts.prefillFromTemplate(
                    .with { $0.templateID = template.templateID }, metadata: ada)
                #expect(prefilled.exercises.first?.sets.count == 3)
                var input = prefilled
                for index in input.exercises[0].sets.indices {
                    input.exercises[0].sets[index].weight = .with {
                        $0.value = 100
                        $0.unit = .kg
                    }
                }
                let fromPlan = try await workouts.logWorkout(.with { $0.workout = input }, metadata: ada)
                #expect(fromPlan.templateID == template.templateID)
                #expect(fromPlan.templateVersion == 2)

                // Comments need details: Ada grants it back, the coach comments on a set, Ada replies.
                _ = try await coaching.setScopes(
                    .with {
                        $0.coachID = cora
                        $0.scopes = ["history", "details"]
                    }, metadata: ada)
                let comment = try await coach.commentOnWorkout(
                    .with {
                        $0.clientID = adaID
                        $0.workoutID = fromPlan.workoutID
                        $0.exerciseIndex = 0
                        $0.setIndex = 2
                        $0.body = "Depth looked good on the last set"
                    }, metadata: coachToken)
                #expect(comment.authorRole == "coach")
                _ = try await coaching.addComment(
                    .with {
                        $0.workoutID = fromPlan.workoutID
                        $0.body = "Thanks!"
                    }, metadata: ada)
                let thread = try await coaching.listComments(.with { $0.workoutID = fromPlan.workoutID }, metadata: ada)
                #expect(thread.comments.map(\.body) == ["Depth looked good on the last set", "Thanks!"])
                #expect(thread.comments.map(\.authorName) == ["coachcora", "ada"])
                #expect(thread.comments.first?.setIndex == 2)

                // The access log shows each read call once, newest first.
                let log = try await coaching.listAccessLog(.init(), metadata: ada)
                #expect(
                    log.entries.map(\.method) == [
                        "CommentOnWorkout", "ListClientWorkouts", "GetClientWorkout", "ListClientWorkouts",
                        "ListClients",
                    ])
                #expect(log.entries.allSatisfy { $0.coachID == cora && $0.coachName == "coachcora" })
                // A read of one workout names it; a list names none.
                #expect(log.entries.map(\.workoutID) == [fromPlan.workoutID, "", logged.workoutID, "", ""])
                #expect(log.entries[0].workoutName == fromPlan.name && log.entries[2].workoutName == "Heavy squat")
                #expect(log.entries[0].workoutStartedAt == fromPlan.startedAt && !log.entries[1].hasWorkoutStartedAt)

                // Ending the link removes access at once; the coach's reads answer like an unknown client.
                _ = try await coaching.endCoaching(.with { $0.coachID = cora }, metadata: ada)
                let ended = await rpcCode {
                    _ = try await coach.listClientWorkouts(.with { $0.clientID = adaID }, metadata: coachToken)
                }
                let unknown = await rpcCode {
                    _ = try await coach.listClientWorkouts(
                        .with { $0.clientID = UUID().uuidString }, metadata: coachToken)
                }
                #expect(ended == .notFound)
                #expect(unknown == .notFound)
                // The assigned program disappears with the link.
                #expect(try await coaching.listAssignments(.init(), metadata: ada).assignments.isEmpty)
            }
        }
    }
}
