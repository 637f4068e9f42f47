import Foundation
import GRPCCore
import SpotterCore
import SpotterProto

/// `spotter.v1.ShareService`: a workout's summary card and an exercise's progress chart.
public struct ShareHandler: Spotter_V1_ShareService.SimpleServiceProtocol {
    private let share: ShareService

    public init(share: ShareService) {
        self.share = share
    }

    public func getWorkoutCard(request: Spotter_V1_GetWorkoutCardRequest, context: ServerContext) async throws
        -> Spotter_V1_ShareImage
    {
        let principal = try RequestContext.principal()
        let image = try await share.workoutCard(
            principal, workoutID: request.workoutID, format: try Self.format(request.format))
        return Spotter_V1_ShareImage(image)
    }

    public func getProgressChart(request: Spotter_V1_GetProgressChartRequest, context: ServerContext) async throws
        -> Spotter_V1_ShareImage
    {
        let principal = try RequestContext.principal()
        let image = try await share.progressChart(
            principal, exerciseID: request.exerciseID,
            from: request.hasFrom ? try request.from.date("from") : nil,
            to: request.hasTo ? try request.to.date("to") : nil,
            formula: try E1RMFormula(requested: request.formula),
            format: try Self.format(request.format))
        return Spotter_V1_ShareImage(image)
    }

    /// SVG unless PNG is asked for.
    static func format(_ format: Spotter_V1_ImageFormat) throws(SpotterError) -> ImageFormat {
        switch format {
        case .unspecified, .svg: .svg
        case .png: .png
        case .UNRECOGNIZED(let value): throw .invalid("format", "must be SVG or PNG (got \(value))")
        }
    }
}

extension Spotter_V1_ShareImage {
    init(_ image: ShareImage) {
        self.init()
        data = image.data
        mediaType = image.format.mediaType
        width = Int32(image.width)
        height = Int32(image.height)
    }
}
