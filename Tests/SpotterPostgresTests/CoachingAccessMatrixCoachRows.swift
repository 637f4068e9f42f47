import Foundation
import Logging
import Postgres
import SpotterCore
import SpotterPostgres
import SpotterTestSupport
import Testing

/// The access matrix's coach-facing calls about the owner: links, scopes and tiers decide
/// (see `CoachingAccessMatrixTests`).
func coachMatrixRows() -> [MatrixRow] {
    [
        MatrixRow(
            name: "coaching.clients",
            call: { coaching, _, p, _ in try await coaching.clients(p, inactiveDays: 0) },
            expected: { $0.isCoach ? .success : .failure(coachOnly) },
            logs: { Role.owner.active.contains($0) ? (.overview, "ListClients") : nil },
            visible: { $0.active.union([$0]) },
            check: { role, value, w in
                expectValue(value, as: [ClientSummary].self, role) { clients in
                    #expect(Set(clients.map(\.link.lifterID)) == Set(role.active.map(w.id)), "as \(role)")
                    if let owner = clients.first(where: { $0.link.lifterID == w.id(.owner) }) {
                        #expect(owner.lastWorkoutAt != nil, "as \(role)")
                        #expect(owner.workoutsThisWeek != nil, "as \(role)")
                    }
                }
            }
        ),
        MatrixRow(
            name: "coaching.clientHistory",
            call: { coaching, _, p, w in
                try await coaching.clientHistory(
                    p, client: w.client, from: nil, to: nil, text: "", pageSize: 0, pageToken: "")
            },
            expected: coachCall(needs: .history),
            logs: logged(.history, "ListClientWorkouts"),
            visible: coachAndOwner,
            check: { role, value, w in
                expectValue(value, as: Page<WorkoutEntry>.self, role) { page in
                    #expect(page.items.map(\.id) == w.ownerWorkouts, "as \(role)")
                    // Sets, reps and volume only with the details scope.
                    let details = role.ownerScopes.contains(.details)
                    #expect(page.items.allSatisfy { ($0.summary != nil) == details }, "as \(role)")
                    #expect(page.items.allSatisfy { ($0.summary?.setCount ?? 0 > 0) == details }, "as \(role)")
                }
            }
        ),
        MatrixRow(
            name: "coaching.clientWorkout",
            call: { coaching, _, p, w in try await coaching.clientWorkout(p, client: w.client, workoutID: w.workout) },
            expected: coachCall(needs: .details),
            logs: logged(.details, "GetClientWorkout"),
            visible: coachAndOwner,
            check: { role, value, w in
                expectValue(value, as: Workout.self, role) { workout in
                    #expect(workout.id.description == w.workout)
                    #expect(workout.content.exercises.map(\.sets.count) == [3, 3, 3])
                    #expect(workout.exerciseNames[ExerciseID(w.exercise)!] == w.exerciseName, "as \(role)")
                }
            }
        ),
        MatrixRow(
            name: "coaching.clientWorkout (another client's workout id)",
            call: { coaching, _, p, w in
                try await coaching.clientWorkout(p, client: w.client, workoutID: w.foreignWorkout)
            },
            expected: { role in
                coachCall(needs: .details)(role).map { outcome in
                    if case .success = outcome { return workoutNotFound }
                    return outcome
                }
            },
            twin: { world in
                var world = world
                world.foreignWorkout = UUID().uuidString.lowercased()
                return world
            }
        ),
        MatrixRow(
            name: "coaching.clientProgress (squat)",
            call: { coaching, _, p, w in
                try await coaching.clientProgress(
                    p, client: w.client, exerciseID: Catalog.squat.description, from: nil, to: nil, formula: .epley)
            },
            expected: coachCall(needs: .progress, tier: [.coachLowTier: freeCoachProgress]),
            logs: logged(.progress, "GetClientProgress"),
            visible: coachAndOwner,
            check: { role, value, _ in
                expectValue(value, as: ProgressReport.self, role) { report in
                    #expect(report.points.count == 2, "as \(role)")
                    #expect(report.records.heaviest?.set.weight == Mass(kilograms: 100), "as \(role)")
                }
            }
        ),
        MatrixRow(
            name: "coaching.clientProgress (overhead press)",
            call: { coaching, _, p, w in
                try await coaching.clientProgress(
                    p, client: w.client, exerciseID: Catalog.overheadPress.description, from: nil, to: nil,
                    formula: .epley)
            },
            expected: coachCall(
                needs: .progress,
                tier: [.coachLowTier: freeCoachProgress, .coachMid: coachProProgress("Overhead Press")]),
            logs: logged(.progress, "GetClientProgress"),
            visible: coachAndOwner,
            check: { role, value, _ in
                expectValue(value, as: ProgressReport.self, role) { #expect($0.points.count == 1, "as \(role)") }
            }
        ),
        MatrixRow(
            name: "coaching.clientProgress (the owner's custom exercise)",
            call: { coaching, _, p, w in
                try await coaching.clientProgress(
                    p, client: w.client, exerciseID: w.exercise, from: nil, to: nil, formula: .epley)
            },
            expected: coachCall(
                needs: .progress,
                tier: [.coachLowTier: freeCoachProgress, .coachMid: coachProProgress("Owner Zercher Squat")]),
            logs: logged(.progress, "GetClientProgress"),
            visible: coachAndOwner,
            check: { role, value, w in
                expectValue(value, as: ProgressReport.self, role) { report in
                    #expect(report.exercise.id.description == w.exercise, "as \(role)")
                    #expect(report.points.count == 1, "as \(role)")
                }
            }
        ),
        MatrixRow(
            name: "coaching.clientExercises (zercher: finds the owner's custom exercise)",
            call: { coaching, _, p, w in try await coaching.clientExercises(p, client: w.client, query: "zercher") },
            expected: coachCall(needs: .progress),
            logs: logged(.progress, "ListClientExercises"),
            visible: coachAndOwner,
            check: { role, value, w in
                expectValue(value, as: [Exercise].self, role) { exercises in
                    #expect(exercises.map(\.name) == [w.exerciseName], "as \(role)")
                }
            }
        ),
        MatrixRow(
            name: "coaching.clientStatistics",
            call: { coaching, _, p, w in
                try await coaching.clientStatistics(
                    p, client: w.client, period: .month, from: statisticsFrom, to: statisticsTo)
            },
            expected: coachCall(
                needs: .progress,
                tier: [.coachLowTier: .tierRequired("a client's statistics need the Coach tier", tier: .coach)]),
            logs: logged(.statistics, "GetClientStatistics"),
            visible: coachAndOwner,
            check: { role, value, _ in
                expectValue(value, as: Statistics.self, role) { statistics in
                    #expect(statistics.buckets.map(\.workouts).reduce(0, +) == 3, "as \(role): two days and a run")
                    #expect(statistics.buckets.map(\.setCount).reduce(0, +) == 13, "as \(role)")
                    #expect(statistics.streak.longest >= 1, "as \(role): the client's streak")
                    // Whole for any coach tier, whatever the client's own tier leaves out of theirs.
                    #expect(statistics.breakdownsLocked == nil, "as \(role)")
                    #expect(statistics.buckets.contains { !$0.muscleGroups.isEmpty }, "as \(role): muscle groups")
                }
            }
        ),
        MatrixRow(
            name: "coaching.clientMeasurements",
            call: { coaching, _, p, w in
                try await coaching.clientMeasurements(p, client: w.client, metrics: [], from: "", to: "")
            },
            expected: coachCall(needs: .body),
            logs: logged(.body, "GetClientMeasurements"),
            visible: coachAndOwner,
            check: { role, value, w in
                expectValue(value, as: [MeasurementSeries].self, role) { series in
                    #expect(series.flatMap(\.measurements).map(\.id.description) == [w.measurement], "as \(role)")
                }
            }
        ),
        MatrixRow(
            name: "sessions.clientSession (following the owner's guided session)",
            call: { _, _, p, w in try await w.sessions.clientSession(p, client: w.client, id: w.session) },
            expected: coachCall(needs: .details),
            logs: logged(.details, "WatchClientSession"),
            visible: coachAndOwner,
            check: { role, value, w in
                expectValue(value, as: GuidedSession.self, role) { session in
                    #expect(session.id.description == w.session, "as \(role)")
                }
            }
        ),
        MatrixRow(
            name: "runs.clientRun (the owner's run and its footsteps)",
            call: { _, _, p, w in try await w.runs.clientRun(p, client: w.client, id: w.run) },
            expected: coachCall(needs: .details),
            logs: logged(.details, "GetClientRun"),
            visible: coachAndOwner,
            check: { role, value, w in
                expectValue(value, as: Run.self, role) { run in
                    #expect(run.workout.id.description == w.run && run.analysis.footsteps == 200, "as \(role)")
                }
            }
        ),
        MatrixRow(
            name: "coaching.clientAchievements",
            call: { coaching, _, p, w in try await coaching.clientAchievements(p, client: w.client) },
            expected: coachCall(
                needs: .progress,
                tier: [.coachLowTier: .tierRequired("a client's statistics need the Coach tier", tier: .coach)]),
            logs: logged(.statistics, "GetClientAchievements"),
            visible: coachAndOwner,
            check: { role, value, w in
                expectValue(value, as: (client: TenantID, achievements: [Achievement]).self, role) { answer in
                    #expect(answer.client.description == w.client, "as \(role)")
                    #expect(answer.achievements.first { $0.key == "milestone:1" }?.earned != nil, "as \(role)")
                }
            }
        ),
        MatrixRow(
            name: "coaching.clientComments",
            call: { coaching, _, p, w in try await coaching.clientComments(p, client: w.client, workoutID: w.workout) },
            expected: coachCall(needs: .details),
            logs: logged(.details, "ListClientComments"),
            visible: { Role.commenters.union([$0, .owner]) },
            check: { role, value, w in
                expectValue(value, as: [WorkoutComment].self, role) { comments in
                    #expect(comments.map { $0.id.uuidString.lowercased() }.contains(w.comment), "as \(role)")
                }
            }
        ),
        MatrixRow(
            name: "coaching.commentAsCoach",
            call: { coaching, _, p, w in
                try await coaching.commentAsCoach(
                    p, client: w.client, workoutID: w.workout, exerciseIndex: 1, setIndex: 0, body: "elbows in")
            },
            expected: coachCall(needs: .details),
            logs: logged(.details, "CommentOnWorkout"),
            visible: coachAndOwner,
            check: { role, value, w in
                expectValue(value, as: WorkoutComment.self, role) { comment in
                    #expect(comment.authorID == w.id(role) && comment.authorSide == .coach, "as \(role)")
                    #expect(comment.workoutID.description == w.workout)
                }
            }
        ),
        MatrixRow(
            name: "coaching.assign (a template of the caller's own)",
            call: { coaching, _, p, w in
                try await coaching.assign(
                    p, client: w.client, templateID: w.ownTemplates[w.role(of: p)]!, programID: "", note: "")
            },
            expected: coachCall(needs: nil),
            visible: coachAndOwner,
            check: { role, value, w in
                expectValue(value, as: Assignment.self, role) { assignment in
                    #expect(assignment.lifterID == w.id(.owner) && assignment.coachID == w.id(role))
                }
            }
        ),
        MatrixRow(
            name: "coaching.assign (the stranger's template)",
            call: { coaching, _, p, w in
                try await coaching.assign(p, client: w.client, templateID: w.foreignTemplate, programID: "", note: "")
            },
            expected: { $0.isCoach ? templateNotFound : .failure(coachOnly) }
        ),
        MatrixRow(
            name: "coaching.deleteCommentAsCoach (the caller's own comment)",
            call: { coaching, _, p, w in
                try await coaching.deleteCommentAsCoach(
                    p, client: w.client, id: w.ownComments[w.role(of: p)] ?? w.comment)
                return "deleted"
            },
            expected: coachCall(needs: .details),
            logs: logged(.details, "DeleteClientComment")
        ),
        MatrixRow(
            name: "coaching.deleteCommentAsCoach (the owner's own comment)",
            call: { coaching, _, p, w in
                try await coaching.deleteCommentAsCoach(p, client: w.client, id: w.comment)
                return "deleted"
            },
            // A coach who sees the workout's comments sees this one: refused as not theirs. To
            // every other caller it is not there.
            expected: { role in
                coachCall(needs: .details)(role).map { outcome in
                    if case .success = outcome {
                        return .failure(.permissionDenied("you can delete only your own comments"))
                    }
                    return outcome
                }
            },
            twin: { world in
                var world = world
                world.comment = UUID().uuidString.lowercased()
                return world
            }
        ),
    ]
}
