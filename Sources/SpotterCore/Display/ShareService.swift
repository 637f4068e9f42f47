import Foundation

/// Turns an SVG into a PNG of the same size.
public protocol ImageRenderer: Sendable {
    func png(svg: String, width: Int, height: Int) async throws -> Data
}

public enum ImageFormat: String, Sendable, CaseIterable {
    case svg, png

    public var mediaType: String { self == .svg ? "image/svg+xml" : "image/png" }
}

/// A picture to share: its bytes and media type.
public struct ShareImage: Sendable, Equatable {
    public var data: Data
    public var format: ImageFormat
    public var width: Int
    public var height: Int

    public init(data: Data, format: ImageFormat, width: Int = ShareCards.width, height: Int = ShareCards.height) {
        self.data = data
        self.format = format
        self.width = width
        self.height = height
    }
}

/// Share images of the caller's own workouts and progress, read through the same services (and
/// so the same access rules and tier gates) as the API's reads.
public struct ShareService: Sendable {
    private let workouts: WorkoutService
    private let progress: ProgressService
    private let contexts: any TenantContextStore
    private let renderer: any ImageRenderer

    public init(
        workouts: WorkoutService, progress: ProgressService, contexts: any TenantContextStore,
        renderer: any ImageRenderer
    ) {
        self.workouts = workouts
        self.progress = progress
        self.contexts = contexts
        self.renderer = renderer
    }

    public func workoutCard(_ principal: Principal, workoutID: String, format: ImageFormat) async throws
        -> ShareImage
    {
        let workout = try await workouts.get(principal, id: workoutID)
        let display = try await self.display(principal)
        return try await image(ShareCards.workoutCard(workout, format: display), format)
    }

    /// The chart of `GetProgress`'s answer; the same tier rule applies.
    public func progressChart(
        _ principal: Principal, exerciseID: String, from: Date?, to: Date?, formula: E1RMFormula, format: ImageFormat
    ) async throws -> ShareImage {
        let report = try await progress.progress(
            principal, exerciseID: exerciseID, from: from, to: to, formula: formula)
        let display = try await self.display(principal)
        return try await image(ShareCards.progressChart(report, format: display, formula: formula), format)
    }

    /// `svg` as `format`: as it is, or rendered.
    public func image(_ svg: String, _ format: ImageFormat) async throws -> ShareImage {
        switch format {
        case .svg: ShareImage(data: Data(svg.utf8), format: .svg)
        case .png:
            ShareImage(
                data: try await renderer.png(svg: svg, width: ShareCards.width, height: ShareCards.height),
                format: .png)
        }
    }

    /// Reading through `training`'s workouts and progress.
    public init(training: TrainingServices, renderer: any ImageRenderer) {
        self.init(
            workouts: training.workouts, progress: training.progress, contexts: training.contexts, renderer: renderer)
    }

    private func display(_ principal: Principal) async throws -> DisplayFormat {
        let context = try await principal.context(from: contexts)
        return DisplayFormat(timeZone: context.timeZone, unit: context.unit)
    }
}
