import Foundation
import Logging
import Postgres
import SpotterCore
import SpotterPostgres
import SpotterTestSupport
import Testing

/// The access matrix's lifter-facing calls: what the owner, other lifters and every coach get
/// when they call what only the owner may (see `CoachingAccessMatrixTests`).
func lifterMatrixRows() -> [MatrixRow] {
    [
        MatrixRow(
            name: "training.workouts.get (owner's workout)",
            call: { _, training, p, w in try await training.workouts.get(p, id: w.workout) },
            expected: lifterCall(owner: .success, lifters: workoutNotFound, coaches: workoutNotFound),
            check: { _, value, w in
                expectValue(value, as: Workout.self, .owner) { #expect($0.id.description == w.workout) }
            }
        ),
        MatrixRow(
            name: "training.workouts.update (owner's workout)",
            call: { _, training, p, w in
                try await training.workouts.update(
                    p, id: w.workout, WorkoutPatch(notes: "edited by \(w.role(of: p))"), expectedVersion: nil)
            },
            expected: lifterCall(owner: .success, lifters: workoutNotFound, coaches: workoutNotFound)
        ),
        MatrixRow(
            name: "training.workouts.delete (owner's workout)",
            call: { _, training, p, w in
                try await training.workouts.delete(p, id: w.workout)
                return "deleted"
            },
            expected: lifterCall(owner: nil, lifters: workoutNotFound, coaches: workoutNotFound)
        ),
        MatrixRow(
            name: "training.workouts.history (own)",
            call: { _, training, p, _ in
                try await training.workouts.history(p, from: nil, to: nil, text: "", pageSize: 0, pageToken: "")
            },
            expected: lifterCall(owner: .success, lifters: .success, coaches: .success),
            check: { role, value, w in
                expectValue(value, as: Page<WorkoutEntry>.self, role) { page in
                    if role == .owner { #expect(page.items.map(\.id) == w.ownerWorkouts) }
                    if role.isCoach { #expect(page.items.isEmpty, "as \(role)") }
                }
            }
        ),
        MatrixRow(
            name: "training.transfer.export (own account, JSON and CSV)",
            call: { _, training, p, _ in
                var data = Data()
                for format in ExportFormat.allCases {
                    try await training.transfer.export(p, format: format) { data.append($0) }
                }
                return String(decoding: data, as: UTF8.self)
            },
            expected: lifterCall(owner: .success, lifters: .success, coaches: .success),
            // Links name both parties; comments and the access log name the coach.
            visible: { role in role.linked.union([role]) },
            check: { role, value, w in
                expectValue(value, as: String.self, role) { text in
                    let owns = w.ownerWorkouts.map(\.description).allSatisfy(text.contains)
                    #expect(owns == (role == .owner), "as \(role): the owner's workouts in the export: \(owns)")
                }
            }
        ),
        MatrixRow(
            name: "share.workoutCard (owner's workout)",
            // The SVG's text, so the leak check reads what the picture shows.
            call: { _, training, p, w in
                let image = try await ShareService(training: training, renderer: SVGOnlyRenderer())
                    .workoutCard(p, workoutID: w.workout, format: .svg)
                return String(decoding: image.data, as: UTF8.self)
            },
            expected: lifterCall(owner: .success, lifters: workoutNotFound, coaches: workoutNotFound),
            check: { _, value, _ in
                expectValue(value, as: String.self, .owner) { #expect($0.hasPrefix("<svg")) }
            }
        ),
        MatrixRow(
            name: "share.progressChart (owner's custom exercise)",
            call: { _, training, p, w in
                let image = try await ShareService(training: training, renderer: SVGOnlyRenderer())
                    .progressChart(p, exerciseID: w.exercise, from: nil, to: nil, formula: .epley, format: .svg)
                return String(decoding: image.data, as: UTF8.self)
            },
            expected: lifterCall(owner: .success, lifters: exerciseNotFound, coaches: exerciseNotFound)
        ),
        MatrixRow(
            name: "training.exercises.get (owner's custom exercise)",
            call: { _, training, p, w in try await training.exercises.get(p, w.exercise) },
            expected: lifterCall(owner: .success, lifters: exerciseNotFound, coaches: exerciseNotFound)
        ),
        MatrixRow(
            name: "training.progress.progress (owner's custom exercise)",
            call: { _, training, p, w in
                try await training.progress.progress(p, exerciseID: w.exercise, from: nil, to: nil, formula: .epley)
            },
            expected: lifterCall(owner: .success, lifters: exerciseNotFound, coaches: exerciseNotFound),
            check: { role, value, _ in
                expectValue(value, as: ProgressReport.self, role) { #expect($0.points.count == 1) }
            }
        ),
        MatrixRow(
            name: "training.body.series (one's own)",
            call: { _, training, p, _ in try await training.body.series(p, metrics: [], from: "", to: "") },
            expected: bodyTracking(lifterCall(owner: .success, lifters: .success, coaches: .success)),
            check: { role, value, w in
                expectValue(value, as: [MeasurementSeries].self, role) { series in
                    let ids = series.flatMap(\.measurements).map(\.id.description)
                    #expect(ids.contains(w.measurement) == (role == .owner), "as \(role)")
                }
            }
        ),
        MatrixRow(
            name: "sessions.get (the owner's guided session)",
            call: { _, _, p, w in try await w.sessions.get(p, id: w.session) },
            expected: lifterCall(owner: .success, lifters: sessionNotFound, coaches: sessionNotFound)
        ),
        MatrixRow(
            name: "runs.get (the owner's run)",
            call: { _, _, p, w in try await w.runs.get(p, id: w.run) },
            expected: lifterCall(owner: .success, lifters: runNotFound, coaches: runNotFound)
        ),
        MatrixRow(
            name: "runs.list (one's own runs only)",
            call: { _, _, p, w in try await w.runs.list(p, before: nil, limit: 0) },
            expected: lifterCall(owner: .success, lifters: .success, coaches: .success),
            check: { role, value, w in
                expectValue(value, as: [Run].self, role) { list in
                    #expect(list.contains { $0.workout.id.description == w.run } == (role == .owner), "as \(role)")
                }
            }
        ),
        MatrixRow(
            name: "sessions.list (one's own sessions only)",
            call: { _, _, p, w in try await w.sessions.list(p, limit: 0) },
            expected: lifterCall(owner: .success, lifters: .success, coaches: .success),
            check: { role, value, w in
                expectValue(value, as: [GuidedSession].self, role) { list in
                    #expect(list.contains { $0.id.description == w.session } == (role == .owner), "as \(role)")
                }
            }
        ),
        MatrixRow(
            name: "sessions.addExercise (a change to the owner's guided session)",
            call: { _, _, p, w in
                try await w.sessions.addExercise(
                    p, id: w.session, exerciseID: Catalog.benchPress.description,
                    sets: [SetDraft(reps: 5, weight: WeightDraft(value: 60, unit: .kg))])
            },
            expected: lifterCall(owner: .success, lifters: sessionNotFound, coaches: sessionNotFound)
        ),
        MatrixRow(
            name: "training.body.update (the owner's measurement)",
            call: { _, training, p, w in
                try await training.body.update(
                    p, id: w.measurement,
                    MeasurementDraft(
                        metric: "body_weight", measuredOn: "2026-09-01", value: 81, note: "Owner morning weigh-in"),
                    expectedVersion: nil)
            },
            expected: bodyTracking(
                lifterCall(owner: .success, lifters: measurementNotFound, coaches: measurementNotFound))
        ),
        MatrixRow(
            name: "training.activity.achievements (one's own; the owner's earned by the owner's workouts)",
            call: { _, training, p, _ in try await training.activity.achievements(p) },
            expected: lifterCall(owner: .success, lifters: .success, coaches: .success),
            check: { role, value, w in
                expectValue(value, as: [Achievement].self, role) { list in
                    let earnedBy = Set(list.compactMap { $0.earned?.workoutID.description })
                    #expect(earnedBy.contains(w.workout) == (role == .owner), "as \(role)")
                }
            }
        ),
        MatrixRow(
            name: "training.activity.summary (one's own)",
            call: { _, training, p, _ in try await training.activity.summary(p, from: nil, to: nil) },
            expected: lifterCall(owner: .success, lifters: .success, coaches: .success),
            check: { role, value, _ in
                expectValue(value, as: ActivitySummary.self, role) { summary in
                    if role == .owner { #expect(summary.totals.workouts >= 2 && summary.totals.setCount >= 12) }
                }
            }
        ),
        MatrixRow(
            name: "training.progress.results (owner's custom exercise)",
            call: { _, training, p, w in
                try await training.progress.results(p, exerciseID: w.exercise, pageSize: 0, pageToken: "")
            },
            expected: lifterCall(owner: .success, lifters: exerciseNotFound, coaches: exerciseNotFound)
        ),
        MatrixRow(
            name: "training.templates.get (coach_full's template assigned to the owner)",
            call: { _, training, p, w in try await training.templates.get(p, id: w.programTemplate) },
            expected: lifterCall(
                owner: .success, lifters: templateNotFound, coaches: templateNotFound, except: [.coachFull: .success]),
            visible: { $0 == .owner ? [.owner, .coachFull] : [$0] }
        ),
        MatrixRow(
            name: "coaching.program (coach_full's program assigned to the owner)",
            call: { coaching, _, p, w in try await coaching.program(p, id: w.program) },
            expected: lifterCall(
                owner: .success, lifters: programNotFound, coaches: programNotFound, except: [.coachFull: .success]),
            visible: { $0 == .owner ? [.owner, .coachFull] : [$0] }
        ),
        MatrixRow(
            name: "coaching.follow (coach_full's program assigned to the owner)",
            call: { coaching, _, p, w in try await coaching.follow(p, programID: w.program, startOn: "") },
            expected: lifterCall(owner: .success, lifters: programNotFound, coaches: coachesRefused),
            visible: { $0 == .owner ? [.owner, .coachFull] : [$0] }
        ),
        MatrixRow(
            name: "coaching.comments (owner's workout)",
            call: { coaching, _, p, w in try await coaching.comments(p, workoutID: w.workout) },
            expected: lifterCall(owner: .success, lifters: workoutNotFound, coaches: workoutNotFound),
            visible: { $0 == .owner ? Role.commenters.union([.owner]) : [$0] },
            check: { role, value, w in
                expectValue(value, as: [WorkoutComment].self, role) { comments in
                    #expect(comments.map { $0.id.uuidString.lowercased() }.contains(w.comment))
                    #expect(comments.count == 1 + Role.commenters.count)
                }
            }
        ),
        MatrixRow(
            name: "coaching.comment (owner's workout)",
            call: { coaching, _, p, w in
                try await coaching.comment(p, workoutID: w.workout, exerciseIndex: nil, setIndex: nil, body: "mine?")
            },
            expected: lifterCall(owner: .success, lifters: workoutNotFound, coaches: coachesRefused)
        ),
        MatrixRow(
            name: "coaching.deleteComment (owner's comment)",
            call: { coaching, _, p, w in
                try await coaching.deleteComment(p, id: w.comment)
                return "deleted"
            },
            expected: lifterCall(owner: nil, lifters: commentNotFound, coaches: coachesRefused)
        ),
        MatrixRow(
            name: "coaching.accessLog (own)",
            call: { coaching, _, p, _ in try await coaching.accessLog(p, coach: "", pageSize: 100, pageToken: "") },
            expected: lifterCall(owner: .success, lifters: .success, coaches: coachesRefused),
            // The ended coach read once before the link ended.
            visible: { $0.linked.union([$0]) },
            check: { role, value, _ in
                expectValue(value, as: Page<AccessLogEntry>.self, role) { page in
                    if role == .stranger { #expect(page.items.isEmpty) }
                    if role == .owner { #expect(!page.items.isEmpty) }
                }
            }
        ),
        MatrixRow(
            name: "coaching.accessLog (own, for the owner's coach)",
            call: { coaching, _, p, w in
                try await coaching.accessLog(p, coach: w.coach, pageSize: 100, pageToken: "")
            },
            expected: lifterCall(owner: .success, lifters: .success, coaches: coachesRefused),
            visible: { $0.active.union([$0]) },
            check: { role, value, w in
                expectValue(value, as: Page<AccessLogEntry>.self, role) { page in
                    #expect(page.items.allSatisfy { $0.coachID.description == w.coach })
                    if role == .stranger { #expect(page.items.isEmpty) }
                }
            }
        ),
        MatrixRow(
            name: "coaching.setScopes (the owner's coach)",
            call: { coaching, _, p, w in
                try await coaching.setScopes(p, coach: w.coach, scopes: World.allScopes)
            },
            // The other client has their own link with the same coach.
            expected: lifterCall(
                owner: .success, lifters: noLinkWithCoach, coaches: coachesRefused, except: [.otherClient: .success]),
            visible: { $0.active.union([$0]) },
            check: { role, value, _ in
                expectValue(value, as: CoachLink.self, role) { #expect($0.scopes == Set(Scope.allCases)) }
            }
        ),
        MatrixRow(
            name: "coaching.endLink (the owner's coach)",
            call: { coaching, _, p, w in try await coaching.endLink(p, other: w.coach) },
            expected: lifterCall(
                owner: nil, lifters: noLinkWithCoach, coaches: .failure(noLinkWithClient), except: [.otherClient: nil])
        ),
        MatrixRow(
            name: "coaching.respond (the owner's coach)",
            call: { coaching, _, p, w in
                try await coaching.respond(p, other: w.coach, accept: true, scopes: World.allScopes)
            },
            expected: lifterCall(owner: noPending, lifters: noPending, coaches: noPending)
        ),
        MatrixRow(
            name: "coaching.links (own, closed too)",
            call: { coaching, _, p, _ in try await coaching.links(p, includeClosed: true) },
            expected: lifterCall(owner: .success, lifters: .success, coaches: .success),
            visible: { $0.linked.union([$0]) },
            check: { role, value, w in
                expectValue(value, as: [CoachLink].self, role) { links in
                    let others = links.map { $0.lifterID == w.id(role) ? $0.coachID : $0.lifterID }
                    #expect(Set(others) == Set(role.linked.map(w.id)), "as \(role)")
                }
            }
        ),
        MatrixRow(
            name: "coaching.assignments (own; a coach's for the owner)",
            call: { coaching, _, p, w in try await coaching.assignments(p, client: w.client) },
            expected: lifterCall(owner: .success, lifters: .success, coaches: .success),
            visible: { $0.isCoach ? [$0, .owner] : $0.active.union([$0]) },
            check: { role, value, w in
                expectValue(value, as: [Assignment].self, role) { assignments in
                    switch role {
                    case .owner, .coachFull: #expect(assignments.map(\.item.description) == [w.program], "as \(role)")
                    default: #expect(assignments.isEmpty, "as \(role)")
                    }
                }
            }
        ),
    ]
}
