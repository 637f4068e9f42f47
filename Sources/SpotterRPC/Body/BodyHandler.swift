import Foundation
import GRPCCore
import SpotterCore
import SpotterProto

/// `spotter.v1.BodyService`: body weight, body fat and tape measurements.
public struct BodyHandler: Spotter_V1_BodyService.SimpleServiceProtocol {
    private let body: BodyService

    public init(body: BodyService) {
        self.body = body
    }

    public func recordMeasurement(request: Spotter_V1_RecordMeasurementRequest, context: ServerContext) async throws
        -> Spotter_V1_BodyMeasurement
    {
        let (principal, tenant) = try RequestContext.tenant()
        let measurement = try await body.record(
            principal, id: request.measurementID, try MeasurementDraft(request.measurement))
        return Spotter_V1_BodyMeasurement(measurement, unit: tenant.unit)
    }

    public func updateMeasurement(request: Spotter_V1_UpdateMeasurementRequest, context: ServerContext) async throws
        -> Spotter_V1_BodyMeasurement
    {
        let (principal, tenant) = try RequestContext.tenant()
        let measurement = try await body.update(
            principal, id: request.measurementID, try MeasurementDraft(request.measurement),
            expectedVersion: request.hasExpectedVersion ? request.expectedVersion : nil)
        return Spotter_V1_BodyMeasurement(measurement, unit: tenant.unit)
    }

    public func deleteMeasurement(request: Spotter_V1_DeleteMeasurementRequest, context: ServerContext) async throws
        -> Spotter_V1_DeleteMeasurementResponse
    {
        try await body.delete(try RequestContext.principal(), id: request.measurementID)
        return .init()
    }

    public func listMeasurements(request: Spotter_V1_ListMeasurementsRequest, context: ServerContext) async throws
        -> Spotter_V1_ListMeasurementsResponse
    {
        let (principal, tenant) = try RequestContext.tenant()
        let series = try await body.series(
            principal, metrics: request.metrics.map(Self.metricName), from: request.from, to: request.to)
        return Spotter_V1_ListMeasurementsResponse(series, unit: tenant.unit)
    }

    /// The core name of a requested metric; an unknown or unspecified one is named as such so the
    /// refusal says which.
    static func metricName(_ metric: Spotter_V1_BodyMetric) -> String {
        BodyMetric(proto: metric)?.rawValue ?? "\(metric)"
    }
}

extension MeasurementDraft {
    /// The draft a request carries; `invalidArgument` naming its unit (under `prefix`) when this
    /// server has no value for it, rather than reading it as unset (the lifter's own unit).
    init(_ input: Spotter_V1_MeasurementInput, prefix: String = "measurement.") throws(SpotterError) {
        var validator = Validator()
        self.init(
            // Unset is "" (required); an unknown number is named, as a list's filter names it.
            metric: input.metric == .unspecified ? "" : BodyHandler.metricName(input.metric),
            measuredOn: input.measuredOn, value: input.value,
            unit: .known(input.unit, prefix + "unit", unset: ", or unset for your unit", into: &validator),
            note: input.note)
        try validator.validate()
    }
}

extension Spotter_V1_BodyMeasurement {
    /// The value in the units of a lifter who logs in `unit`.
    init(_ measurement: BodyMeasurement, unit: WeightUnit) {
        let shown = BodyUnit.shown(measurement.metric, for: unit)
        self = .with {
            $0.measurementID = measurement.id.description
            $0.metric = measurement.metric.proto()
            $0.measuredOn = measurement.measuredOn
            $0.value = measurement.value(in: shown).doubleValue
            $0.unit = shown.proto()
            $0.note = measurement.note
            $0.version = measurement.version
            $0.createdAt = Spotter_V1_Timestamp(measurement.createdAt)
            $0.updatedAt = Spotter_V1_Timestamp(measurement.updatedAt)
        }
    }
}

extension Spotter_V1_ListMeasurementsResponse {
    init(_ series: [MeasurementSeries], unit: WeightUnit) {
        self = .with {
            $0.series = series.map { series in
                let shown = BodyUnit.shown(series.metric, for: unit)
                return .with {
                    $0.metric = series.metric.proto()
                    $0.unit = shown.proto()
                    $0.measurements = series.measurements.map { Spotter_V1_BodyMeasurement($0, unit: unit) }
                    if let change = series.change(in: shown) {
                        $0.change = change.doubleValue
                    }
                }
            }
        }
    }
}
