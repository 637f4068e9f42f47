import Foundation
import GRPCCore
import SpotterCore
import SpotterProto

/// `spotter.v1.RunService`: runs with their footsteps, analysed.
public struct RunHandler: Spotter_V1_RunService.SimpleServiceProtocol {
    private let runs: RunService

    public init(runs: RunService) {
        self.runs = runs
    }

    public func logRun(request: Spotter_V1_LogRunRequest, context: ServerContext) async throws -> Spotter_V1_Run {
        let (principal, tenant) = try RequestContext.tenant()
        let run = try await runs.log(principal, id: request.runID, try RunDraft(request))
        return Spotter_V1_Run(run, unit: tenant.unit)
    }

    public func getRun(request: Spotter_V1_GetRunRequest, context: ServerContext) async throws -> Spotter_V1_Run {
        let (principal, tenant) = try RequestContext.tenant()
        let run =
            request.clientID.isEmpty
            ? try await runs.get(principal, id: request.runID)
            : try await runs.clientRun(principal, client: request.clientID, id: request.runID)
        return Spotter_V1_Run(run, unit: tenant.unit)
    }

    public func listRuns(request: Spotter_V1_ListRunsRequest, context: ServerContext) async throws
        -> Spotter_V1_ListRunsResponse
    {
        let (principal, tenant) = try RequestContext.tenant()
        let before = request.hasBefore ? try request.before.date("before") : nil
        let list = try await runs.list(
            principal, before: before, beforeRunID: request.beforeRunID, limit: Int(request.limit))
        return .with { $0.runs = list.map { Spotter_V1_Run($0, unit: tenant.unit) } }
    }
}

extension RunDraft {
    init(_ request: Spotter_V1_LogRunRequest) throws(SpotterError) {
        self.init(
            name: request.name,
            startedAt: request.hasStartedAt ? try request.startedAt.date("started_at") : nil,
            notes: request.notes,
            samples: request.samples.map { sample in
                FootstepSample(
                    offsetMilliseconds: sample.offsetMs, latitude: sample.hasLatitude ? sample.latitude : nil,
                    longitude: sample.hasLongitude ? sample.longitude : nil,
                    headingDegrees: sample.hasHeadingDegrees ? sample.headingDegrees : nil)
            })
    }
}

extension Spotter_V1_Run {
    init(_ run: Run, unit: WeightUnit) {
        self.init()
        let analysis = run.analysis
        runID = run.workout.id.description
        workout = Spotter_V1_Workout(run.workout, unit: unit)
        footsteps = Int32(analysis.footsteps)
        durationSeconds = analysis.durationSeconds
        movingSeconds = analysis.movingSeconds
        cadence = analysis.cadence
        if let meters = analysis.distanceMeters { distanceMeters = meters }
        directionSource =
            switch analysis.directionSource {
            case .compass: .compass
            case .positions: .positions
            case .none: .none
            }
        minutes = analysis.minutes.map { minute in
            .with {
                $0.index = Int32(minute.index)
                $0.seconds = minute.seconds
                $0.footsteps = Int32(minute.footsteps)
                $0.swerves = Int32(minute.swerves)
                $0.pauses = Int32(minute.pauses)
                $0.weaving = minute.weaving
            }
        }
        pauses = analysis.pauses.map { pause in
            .with {
                $0.startMs = pause.startMilliseconds
                $0.endMs = pause.endMilliseconds
                $0.seconds = pause.seconds
            }
        }
        swerves = analysis.swerves.map { swerve in
            .with {
                $0.offsetMs = swerve.offsetMilliseconds
                // To a tenth of a degree: 60, not the 59.99999999999999 the trigonometry leaves.
                $0.turnDegrees = (swerve.turnDegrees * 10).rounded() / 10
            }
        }
        weavingMinutes = Int32(analysis.weavingMinutes)
    }
}
