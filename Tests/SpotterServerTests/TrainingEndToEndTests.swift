import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2
import GRPCProtobuf
import SpotterProto
import SpotterTestSupport
import SwiftProtobuf
import Testing

@Suite("Training end to end over TLS")
struct TrainingEndToEndTests {
    /// A lifter signed in over the API, preferring pounds.
    private func signUp(_ client: GRPCClient<HTTP2ClientTransport.Posix>, _ name: String) async throws -> Metadata {
        let metadata = try await signUpLifter(client, name, timeZone: "Europe/Berlin")
        _ = try await Spotter_V1_AccountService.Client(wrapping: client).updateProfile(
            .with { $0.unit = .lb }, metadata: metadata)
        return metadata
    }

    private let squat = "c0000000-0000-4000-8000-000000000001"
    private let bench = "c0000000-0000-4000-8000-000000000002"
    private let overheadPress = "c0000000-0000-4000-8000-000000000005"

    @Test("a template prescribes a weight in the reader's unit and a percentage of the max, which prefill loads")
    func prescribedLoads() async throws {
        try await TestServer.with { server in
            try await server.withClient { client in
                let ada = try await signUp(client, "ada")  // pounds
                let templates = Spotter_V1_TemplateService.Client(wrapping: client)
                let workouts = Spotter_V1_WorkoutService.Client(wrapping: client)
                let refused = await rpcError {
                    _ = try await templates.createTemplate(
                        .with {
                            $0.template.name = "Heavy"
                            $0.template.items = [
                                .with {
                                    $0.exerciseID = squat
                                    $0.targetSets = 3
                                    $0.repsMin = 5
                                    $0.targetPercentOfMax = 80
                                    $0.targetWeight = .with { $0.value = 300 }
                                }
                            ]
                        }, metadata: ada)
                }
                #expect(refused?.code == .invalidArgument)
                #expect(
                    refused?.message
                        == "template.items[0].target_weight.unit: must be set to KG or LB; template.items[0].target_percent_of_max: must be unset when target_weight is set: prescribe a weight or a percentage of the max, not both"
                )
                let template = try await templates.createTemplate(
                    .with {
                        $0.template.name = "Heavy"
                        $0.template.items = [
                            .with {
                                $0.exerciseID = squat
                                $0.targetSets = 2
                                $0.repsMin = 5
                                $0.targetPercentOfMax = 80
                            },
                            .with {
                                $0.exerciseID = bench
                                $0.targetSets = 1
                                $0.repsMin = 5
                                $0.targetWeight = .with {
                                    $0.value = 100
                                    $0.unit = .kg
                                }
                            },
                        ]
                    }, metadata: ada)
                #expect(template.items[0].targetPercentOfMax == 80 && !template.items[0].hasTargetWeight)
                // Shown in the reader's unit: 100 kg is 220.46 lb.
                #expect(template.items[1].targetWeight.value == 220.46 && template.items[1].targetWeight.unit == .lb)
                #expect(!template.items[1].hasTargetPercentOfMax)

                let weekAgo = Int64(Date().timeIntervalSince1970 * 1_000_000) - 7 * 86_400 * 1_000_000
                _ = try await workouts.logWorkout(
                    .with {
                        $0.workout.name = "Squat"
                        $0.workout.startedAt = .with { $0.unixMicros = weekAgo }
                        $0.workout.durationSeconds = 3600
                        $0.workout.exercises = [
                            .with {
                                $0.exerciseID = squat
                                $0.sets = [
                                    .with {
                                        $0.reps = 5
                                        $0.rpe = 8
                                        $0.weight = .with {
                                            $0.value = 300
                                            $0.unit = .lb
                                        }
                                    }
                                ]
                            }
                        ]
                    }, metadata: ada)
                let today = try await workouts.prefillFromTemplate(
                    .with { $0.templateID = template.templateID }, metadata: ada)
                // 300 lb × 5 at RPE 8 is an Epley max of 370 lb; 80 % is 296 lb, loaded as 295 lb.
                #expect(today.exercises[0].sets.map(\.weight.value) == [295, 295])
                #expect(today.exercises[0].sets.allSatisfy { $0.weight.unit == .lb })
                // 100 kg prescribed, to a lifter in pounds: loaded as the nearest plates, 220 lb.
                #expect(today.exercises[1].sets.map(\.weight.value) == [220])
            }
        }
    }

    @Test("template → log from template → edit → history → progress → statistics → delete")
    func wholeFlow() async throws {
        try await TestServer.with { server in
            try await server.withClient { client in
                let ada = try await signUp(client, "ada")
                let templates = Spotter_V1_TemplateService.Client(wrapping: client)
                let workouts = Spotter_V1_WorkoutService.Client(wrapping: client)
                let progress = Spotter_V1_ProgressService.Client(wrapping: client)

                let template = try await templates.createTemplate(
                    .with {
                        $0.template.name = "Lower"
                        $0.template.items = [
                            .with {
                                $0.exerciseID = squat
                                $0.targetSets = 3
                                $0.repsMin = 5
                                $0.targetRpe = 8
                            },
                            .with {
                                $0.exerciseID = overheadPress
                                $0.targetSets = 2
                                $0.repsMin = 8
                                $0.repsMax = 10
                            },
                        ]
                    }, metadata: ada)
                #expect(template.items.map(\.exerciseName) == ["Barbell Back Squat", "Overhead Press"])

                var today = try await workouts.prefillFromTemplate(
                    .with { $0.templateID = template.templateID }, metadata: ada)
                #expect(today.templateID == template.templateID)
                #expect(today.exercises.map(\.sets.count) == [3, 2])
                for index in today.exercises[0].sets.indices {
                    today.exercises[0].sets[index].weight = .with {
                        $0.value = 225
                        $0.unit = .lb
                    }
                }
                today.exercises[1].sets.removeLast()
                today.durationSeconds = 3000
                let workoutID = UUID().uuidString.lowercased()
                let logged = try await workouts.logWorkout(
                    .with {
                        $0.workoutID = workoutID
                        $0.workout = today
                    }, metadata: ada)
                #expect(logged.templateVersion == 1)
                #expect(logged.exercises[0].sets[0].weight.value == 225)
                #expect(logged.exercises[0].sets[0].weight.unit == .lb)
                #expect(logged.summary.volume.value == 3375)
                let retried = try await workouts.logWorkout(
                    .with {
                        $0.workoutID = workoutID
                        $0.workout = today
                    }, metadata: ada)
                #expect(retried == logged)
                #expect(
                    try await templates.getTemplate(.with { $0.templateID = template.templateID }, metadata: ada).items
                        .count == 2)

                let renamed = try await workouts.updateWorkout(
                    .with {
                        $0.workoutID = workoutID
                        $0.name = "Lower, heavy"
                        $0.expectedVersion = 1
                    }, metadata: ada)
                #expect(renamed.version == 2 && renamed.exercises.count == 2)

                let history = try await workouts.listWorkouts(.with { $0.query = "squat" }, metadata: ada)
                #expect(history.workouts.map(\.name) == ["Lower, heavy"])
                #expect(history.workouts[0].summary.setCount == 4)

                let squatProgress = try await progress.getProgress(.with { $0.exerciseID = squat }, metadata: ada)
                #expect(squatProgress.points.count == 1)
                // 225 lb × 5 at RPE 8: Epley of 5 reps and 2 in reserve.
                #expect(squatProgress.points[0].e1RmFormula == .epley)
                #expect(squatProgress.points[0].e1RmRepsInReserve == 2)
                #expect(squatProgress.points[0].e1Rm.unit == .lb)
                #expect(abs(squatProgress.points[0].e1Rm.value - 225 * (1 + 7.0 / 30)) < 0.01)
                #expect(squatProgress.records.bestE1RmRepsInReserve == 2)
                #expect(squatProgress.records.heaviestWeight.weight.value == 225)
                // The RPE table is no longer a formula: asked for, it is refused, not answered with Epley.
                let rpe = await rpcError {
                    _ = try await progress.getProgress(
                        .with {
                            $0.exerciseID = squat
                            $0.formula = .rpe
                        }, metadata: ada)
                }
                #expect(rpe?.code == .invalidArgument)
                #expect(
                    rpe?.message.hasPrefix(
                        "formula: E1RM_FORMULA_RPE is no longer a formula: a set logged with an RPE counts its reps in reserve"
                    ) == true)
                #expect(
                    await rpcCode {
                        _ = try await progress.getProgress(.with { $0.exerciseID = overheadPress }, metadata: ada)
                    }
                        == .permissionDenied)

                let now = Spotter_V1_Timestamp.with { $0.unixMicros = Int64(Date().timeIntervalSince1970 * 1_000_000) }
                let statistics = try await progress.getStatistics(
                    .with {
                        $0.period = .week
                        $0.from = .with { $0.unixMicros = now.unixMicros - 30 * 86_400 * 1_000_000 }
                        $0.to = .with { $0.unixMicros = now.unixMicros + 86_400 * 1_000_000 }
                    }, metadata: ada)
                #expect(statistics.buckets.map(\.workouts) == [1])
                let unknownPeriod = await rpcError {
                    _ = try await progress.getStatistics(
                        .with {
                            $0.period = .UNRECOGNIZED(9)
                            $0.from = .with { $0.unixMicros = now.unixMicros - 30 * 86_400 * 1_000_000 }
                            $0.to = now
                        }, metadata: ada)
                }
                #expect(unknownPeriod?.message == "period: must be DAY, WEEK or MONTH, not 9")
                #expect(statistics.buckets[0].activeMinutes == 50)
                // The totals per muscle group are the Pro tier's advanced statistics: a free lifter's
                // answer leaves them out and says which tier adds them.
                #expect(statistics.buckets[0].muscleGroups.isEmpty && statistics.buckets[0].categories.isEmpty)
                #expect(statistics.breakdownsTierRequired == .pro)
                try await server.database.asOwner { connection in
                    try await connection.query(
                        "UPDATE tenants SET tier = 'pro' WHERE tenant_id = (SELECT tenant_id FROM accounts WHERE username = 'ada')"
                    )
                }
                let pro = try await progress.getStatistics(
                    .with {
                        $0.period = .week
                        $0.from = .with { $0.unixMicros = now.unixMicros - 30 * 86_400 * 1_000_000 }
                        $0.to = .with { $0.unixMicros = now.unixMicros + 86_400 * 1_000_000 }
                    }, metadata: ada)
                #expect(pro.buckets[0].muscleGroups.first?.muscleGroup == .quadriceps)
                #expect(!pro.buckets[0].categories.isEmpty && pro.breakdownsTierRequired == .unspecified)

                _ = try await workouts.deleteWorkout(.with { $0.workoutID = workoutID }, metadata: ada)
                #expect(try await workouts.listWorkouts(.init(), metadata: ada).workouts.isEmpty)
                #expect(
                    await rpcCode {
                        _ = try await workouts.getWorkout(.with { $0.workoutID = workoutID }, metadata: ada)
                    }
                        == .notFound)
            }
        }
    }

    @Test("DeleteExercise removes a custom exercise (a tombstone reaches the sync feed); built-in ones are refused")
    func deleteExercise() async throws {
        try await TestServer.with { server in
            try await server.withClient { client in
                let ada = try await signUp(client, "ada")
                let bob = try await signUp(client, "bob")
                let exercises = Spotter_V1_ExerciseService.Client(wrapping: client)
                let sync = Spotter_V1_SyncService.Client(wrapping: client)
                let custom = try await exercises.createExercise(
                    .with {
                        $0.exercise = .with {
                            $0.name = "Zercher Squat"
                            $0.category = .squat
                            $0.muscleGroup = .quadriceps
                            $0.equipment = .barbell
                        }
                    }, metadata: ada)
                let before = try await sync.pull(.init(), metadata: ada)

                let delete = { (id: String, metadata: Metadata) in
                    await rpcCode {
                        _ = try await exercises.deleteExercise(.with { $0.exerciseID = id }, metadata: metadata)
                    }
                }
                #expect(await delete(custom.exerciseID, bob) == .notFound)
                #expect(await delete(squat, ada) == .failedPrecondition)
                #expect(await delete("", ada) == .invalidArgument)
                #expect(await delete(custom.exerciseID, ada) == nil)
                #expect(await delete(custom.exerciseID, ada) == .notFound)
                #expect(
                    await rpcCode {
                        _ = try await exercises.getExercise(.with { $0.exerciseID = custom.exerciseID }, metadata: ada)
                    } == .notFound)

                let after = try await sync.pull(.with { $0.cursor = before.cursor }, metadata: ada).changes.filter {
                    $0.kind != .achievement
                }
                #expect(after.map(\.objectID) == [custom.exerciseID])
                #expect(after.first?.kind == .exercise && after.first?.object == nil)

                // A filter with a number this server has no value for is refused, not ignored.
                let unknown = await rpcError {
                    _ = try await exercises.listExercises(.with { $0.category = .UNRECOGNIZED(99) }, metadata: ada)
                }
                #expect(unknown?.code == .invalidArgument)
                #expect(unknown?.message.contains("category: must be one of its values, 1 to ") == true)
                #expect(unknown?.message.contains("or unset for any; not 99") == true)
                let squats = try await exercises.listExercises(.with { $0.category = .squat }, metadata: ada)
                #expect(!squats.exercises.isEmpty && squats.exercises.allSatisfy { $0.category == .squat })
            }
        }
    }

    @Test("an invalid workout is refused as a whole, naming every field path in the message and BadRequest")
    func invalidWorkout() async throws {
        try await TestServer.with { server in
            try await server.withClient { client in
                let ada = try await signUp(client, "ada")
                let bob = try await signUp(client, "bob")
                let workouts = Spotter_V1_WorkoutService.Client(wrapping: client)
                do {
                    _ = try await workouts.logWorkout(
                        .with {
                            $0.workout.name = "Bad"
                            $0.workout.startedAt = .with { $0.unixMicros = 1_790_000_000_000_000 }
                            $0.workout.exercises = [
                                .with {
                                    $0.exerciseID = squat
                                    $0.sets = [.with { $0.reps = 5 }]
                                },
                                .with { $0.exerciseID = bench },
                                .with {
                                    $0.exerciseID = bench
                                    $0.sets = [
                                        .with {
                                            $0.reps = 5
                                            $0.rpe = 11
                                        },
                                        .with { $0.weight.value = 100 },
                                    ]
                                },
                            ]
                        }, metadata: ada)
                    Issue.record("invalid workout accepted")
                } catch let error as RPCError {
                    #expect(error.code == .invalidArgument)
                    #expect(
                        error.message.contains(
                            "workout.exercises[2].sets[0].rpe: must be between 1 and 10 in steps of 0.5"))
                    let status = try #require(try error.unpackGoogleRPCStatus())
                    let fields = status.details.compactMap(\.badRequest).flatMap(\.violations).map(\.field)
                    #expect(
                        fields == [
                            "workout.exercises[1].sets", "workout.exercises[2].sets[0].rpe",
                            "workout.exercises[2].sets[1].reps", "workout.exercises[2].sets[1].weight.unit",
                        ])
                }
                #expect(try await workouts.listWorkouts(.init(), metadata: ada).workouts.isEmpty)

                // Another lifter's workout answers exactly like a missing one.
                let logged = try await workouts.logWorkout(
                    .with {
                        $0.workout.name = "Ada's"
                        $0.workout.startedAt = .with { $0.unixMicros = 1_790_000_000_000_000 }
                        $0.workout.exercises = [
                            .with {
                                $0.exerciseID = squat
                                $0.sets = [.with { $0.reps = 5 }]
                            }
                        ]
                    }, metadata: ada)
                var missing: RPCError?
                var foreign: RPCError?
                do {
                    _ = try await workouts.getWorkout(.with { $0.workoutID = UUID().uuidString }, metadata: bob)
                } catch let error as RPCError { missing = error }
                do {
                    _ = try await workouts.getWorkout(.with { $0.workoutID = logged.workoutID }, metadata: bob)
                } catch let error as RPCError { foreign = error }
                #expect(missing?.code == .notFound)
                #expect(foreign?.code == missing?.code && foreign?.message == missing?.message)
            }
        }
    }

    @Test("a workout read back can be sent back as it is: a missed attempt keeps reps 0, a timed set has none")
    func readBackAndSendAgain() async throws {
        try await TestServer.with { server in
            try await server.withClient { client in
                let ada = try await signUp(client, "ada")
                let workouts = Spotter_V1_WorkoutService.Client(wrapping: client)
                let logged = try await workouts.logWorkout(
                    .with {
                        $0.workout.name = "Heavy singles"
                        $0.workout.startedAt = .with { $0.unixMicros = 1_790_000_000_000_000 }
                        $0.workout.exercises = [
                            .with {
                                $0.exerciseID = squat
                                $0.sets = [
                                    .with {
                                        $0.reps = 1
                                        $0.weight = .with {
                                            $0.value = 180
                                            $0.unit = .kg
                                        }
                                    },
                                    .with {
                                        $0.reps = 0
                                        $0.weight = .with {
                                            $0.value = 190
                                            $0.unit = .kg
                                        }
                                    },
                                ]
                            },
                            .with {
                                $0.exerciseID = bench
                                $0.sets = [.with { $0.durationSeconds = 60 }]
                            },
                        ]
                    }, metadata: ada)
                let read = try await workouts.getWorkout(.with { $0.workoutID = logged.workoutID }, metadata: ada)
                #expect(read.exercises[0].sets.map(\.hasReps) == [true, true])
                #expect(read.exercises[0].sets[1].reps == 0)
                #expect(!read.exercises[1].sets[0].hasReps && read.exercises[1].sets[0].durationSeconds == 60)
                // A client that copies what it read (as JSON, where an unset field is absent).
                var options = JSONDecodingOptions()
                options.ignoreUnknownFields = true
                var input = try Spotter_V1_WorkoutInput(jsonString: try read.jsonString(), options: options)
                input.notes = "the second single was missed"
                let replaced = try await workouts.replaceWorkout(
                    .with {
                        $0.workoutID = logged.workoutID
                        $0.workout = input
                        $0.expectedVersion = read.version
                    }, metadata: ada)
                #expect(replaced.version == read.version + 1 && replaced.exercises == read.exercises)
                // The weights, logged in kilograms and read in pounds, are still exactly what was logged.
                #expect(
                    try await server.database.count(
                        "SELECT count(*)::int FROM workout_sets WHERE weight_kg IN (180, 190)") == 2)
                // Sent again unchanged, it makes no new version.
                let unchanged = try await workouts.replaceWorkout(
                    .with {
                        $0.workoutID = logged.workoutID
                        $0.workout = input
                    }, metadata: ada)
                #expect(unchanged == replaced)
            }
        }
    }
}
