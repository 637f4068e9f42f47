import Foundation
import Logging
import Postgres
import SpotterCore
import SpotterPostgres
import SpotterTestSupport
import Testing

// MARK: - The rows

enum MatrixOutcome: CustomStringConvertible {
    case success
    case failure(SpotterError)

    var description: String {
        switch self {
        case .success: "success"
        case .failure(let error): "\(error)"
        }
    }
}

/// One call of the matrix, with what each caller must get.
struct MatrixRow {
    typealias Call = (CoachingService, TrainingServices, Principal, World) async throws -> Any

    var name: String
    var call: Call
    /// The exact answer for each caller; `nil` where the call does not apply.
    var expected: (Role) -> MatrixOutcome?
    /// The access-log row a successful call by the caller adds to the owner's log.
    var logs: (Role) -> (kind: AccessKind, method: String)? = { _ in nil }
    /// Whose data a successful answer to the caller may contain.
    var visible: (Role) -> Set<Role> = { [$0] }
    /// The world in which the same call names nothing that exists.
    var twin: (World) -> World = { $0.randomized() }
    /// Further checks of a successful answer.
    var check: (Role, Any, World) -> Void = { _, _, _ in }
}

let coachOnly = SpotterError.permissionDenied("this call is for coach accounts")
let lifterOnly = SpotterError.permissionDenied("this call is for lifter accounts")
let clientNotFound = SpotterError.notFound("client not found")
let freeCoachProgress = SpotterError.tierRequired(
    "a client's progress needs the Coach tier (or Coach Pro for every exercise)", tier: .coach)

func coachProProgress(_ exercise: String) -> SpotterError {
    .tierRequired(
        "a client's progress for \(exercise) needs the Coach Pro tier; the Coach tier covers Barbell Back Squat, "
            + "Barbell Bench Press and Barbell Deadlift",
        tier: .coachPro)
}

/// A lifter-facing call: the owner's answer, the other lifters' and the coaches'; `except` overrides.
func lifterCall(
    owner: MatrixOutcome?, lifters: MatrixOutcome?, coaches: MatrixOutcome?, except: [Role: MatrixOutcome?] = [:]
) -> (Role) -> MatrixOutcome? {
    { role in
        if let special = except[role] { return special }
        return role == .owner ? owner : role.isCoach ? coaches : lifters
    }
}

/// A coach call about the owner: lifters are told it is for coaches, a coach without an active
/// link does not find the client, a missing scope is named, then the tier decides.
func coachCall(needs scope: Scope?, tier refusals: [Role: SpotterError] = [:]) -> (Role) -> MatrixOutcome? {
    { role in
        guard role.isCoach else { return .failure(coachOnly) }
        guard Role.owner.active.contains(role) else { return .failure(clientNotFound) }
        if let scope, !role.ownerScopes.contains(scope) {
            return .failure(.scopeNotGranted("owner has not granted you the \(scope.rawValue) scope", scope: scope))
        }
        if let refusal = refusals[role] { return .failure(refusal) }
        return .success
    }
}

/// What a coach read adds to the owner's log.
func logged(_ kind: AccessKind, _ method: String) -> (Role) -> (kind: AccessKind, method: String)? {
    { _ in (kind, method) }
}

func coachAndOwner(_ role: Role) -> Set<Role> { [role, .owner] }

func expectValue<T>(_ value: Any, as type: T.Type, _ role: Role, _ body: (T) -> Void) {
    guard let typed = value as? T else {
        Issue.record("as \(role): answered \(Swift.type(of: value)), not \(T.self)")
        return
    }
    body(typed)
}

/// Answers many rows share.
let workoutNotFound = MatrixOutcome.failure(.notFound("workout not found"))
let exerciseNotFound = MatrixOutcome.failure(.notFound("exercise not found"))
let templateNotFound = MatrixOutcome.failure(.notFound("template not found"))
let programNotFound = MatrixOutcome.failure(.notFound("program not found"))
let commentNotFound = MatrixOutcome.failure(.notFound("comment not found"))
let measurementNotFound = MatrixOutcome.failure(.notFound("measurement not found"))

/// A body-measurement call of one's own: the tier decides first (Pro, or Coach Pro for a coach),
/// then `outcome`.
func bodyTracking(_ outcome: @escaping (Role) -> MatrixOutcome?) -> (Role) -> MatrixOutcome? {
    { role in
        ["pro", "coach_pro"].contains(role.tier)
            ? outcome(role)
            : role.isCoach
                ? .failure(
                    .tierRequired("body weight and measurement tracking needs the Coach Pro tier", tier: .coachPro))
                : .failure(.tierRequired("body weight and measurement tracking needs the Pro tier", tier: .pro))
    }
}
let sessionNotFound = MatrixOutcome.failure(.notFound("session not found"))
let runNotFound = MatrixOutcome.failure(.notFound("run not found"))
let coachNotFound = MatrixOutcome.failure(.notFound("coach not found"))
/// A lifter's change to a link she does not have (ended, or never made): the same for any coach id.
let noLinkWithCoach = MatrixOutcome.failure(.notFound("you have no pending or active link with this coach"))
/// A coach's end of a link he does not have.
let noLinkWithClient = SpotterError.notFound("you have no pending or active link with this client")
let noPending = MatrixOutcome.failure(.notFound("no pending request to answer"))
let coachesRefused = MatrixOutcome.failure(lifterOnly)
let statisticsFrom = Date(timeIntervalSince1970: 1_790_000_000 - 30 * 86_400)
let statisticsTo = Date(timeIntervalSince1970: 1_790_000_000 + 86_400)

/// Every row: the lifter-facing calls, the coach-facing ones, then Discover's.
func matrixRows() -> [MatrixRow] { lifterMatrixRows() + coachMatrixRows() + discoverMatrixRows() + [importRow()] }

/// Last, as it gives every caller workouts of their own. An import writes the caller's account
/// only: the owner's history is the same before and after every caller's import.
func importRow() -> MatrixRow {
    MatrixRow(
        name: "training.transfer.importWorkouts (a Strong file, into one's own account)",
        call: { _, training, p, w in
            let file =
                "Date,Workout Name,Exercise Name,Set Order,Weight,Reps\n2026-09-01 18:00:00,Imported day,Squat (Barbell),1,100,5\n"
            let report = try await training.transfer.importWorkouts(
                p, format: .strongCSV, unit: .kg, data: Data(file.utf8))
            let owner = try await training.workouts.history(
                w.principals[.owner]!, from: nil, to: nil, text: "", pageSize: 0, pageToken: "")
            // A count, not the ids: the answer must not hold the owner's data.
            return (report, owner.items.count)
        },
        expected: lifterCall(owner: .success, lifters: .success, coaches: .success),
        check: { role, value, w in
            expectValue(value, as: (ImportReport, Int).self, role) { report, ownerHistory in
                #expect(report.workoutsAdded == 1, "as \(role)")
                // The owner imports first: one more workout, and no other caller's.
                #expect(ownerHistory == w.ownerWorkouts.count + 1, "as \(role): the owner's history")
            }
        }
    )
}
