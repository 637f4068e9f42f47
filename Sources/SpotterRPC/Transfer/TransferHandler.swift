import Foundation
import GRPCCore
import SpotterCore
import SpotterProto

/// `spotter.v1.TransferService`: the account's export as a stream, imports from other apps.
///
/// Written against the service protocol rather than the simple one: a streaming response runs
/// after the interceptor has returned, so ExportAccount takes the principal while the call is
/// still inside it, and maps its own errors.
public struct TransferHandler: Spotter_V1_TransferService.ServiceProtocol {
    /// The most a chunk of the export carries.
    static let chunkBytes = 64 << 10

    private let transfer: TransferService

    public init(transfer: TransferService) {
        self.transfer = transfer
    }

    public func exportAccount(request: ServerRequest<Spotter_V1_ExportAccountRequest>, context: ServerContext)
        async throws -> StreamingServerResponse<Spotter_V1_ExportChunk>
    {
        let principal = try RequestContext.principal()
        let format: ExportFormat
        switch request.message.format {
        case .json: format = .json
        case .csv: format = .csv
        case .templatesCsv: format = .templatesCSV
        case .measurementsCsv: format = .measurementsCSV
        default: throw SpotterError.invalid("format", "is required (JSON, CSV, TEMPLATES_CSV or MEASUREMENTS_CSV)")
        }
        let call = RequestContext.current
        let transfer = transfer
        return StreamingServerResponse { writer in
            var first = true
            do {
                try await transfer.export(principal, format: format) { data in
                    var offset = data.startIndex
                    while offset < data.endIndex {
                        let end =
                            data.index(offset, offsetBy: Self.chunkBytes, limitedBy: data.endIndex) ?? data.endIndex
                        var chunk = Spotter_V1_ExportChunk()
                        chunk.data = data[offset..<end]
                        if first {
                            chunk.mediaType = format.mediaType
                            chunk.fileName = "spotter-export.\(format.rawValue)"
                            first = false
                        }
                        try await writer.write(chunk)
                        offset = end
                    }
                }
            } catch let error as SpotterError {
                // The interceptor has returned: map the error here, as it would have.
                throw RPCErrorMapping.map(error, call: call)
            }
            return [:]
        }
    }

    public func importWorkouts(request: StreamingServerRequest<Spotter_V1_ImportChunk>, context: ServerContext)
        async throws -> ServerResponse<Spotter_V1_ImportReport>
    {
        let (principal, _) = try RequestContext.tenant()
        var data = Data()
        var format: Spotter_V1_ImportFormat?
        var unit: WeightUnit?
        var timeZone = ""
        for try await chunk in request.messages {
            if format == nil {
                guard chunk.format != .unspecified else {
                    throw SpotterError.invalid(
                        "format", "is required in the first message (STRONG_CSV, HEVY_CSV or SPOTTER_JSON)")
                }
                format = chunk.format
                unit = WeightUnit(chunk.weightUnit)
                timeZone = chunk.timeZone
            }
            guard data.count + chunk.data.count <= TransferService.maxImportBytes else {
                throw SpotterError.invalid(
                    "data", "must be at most \(TransferService.maxImportBytes >> 20) MiB in total")
            }
            data.append(chunk.data)
        }
        let importFormat: ImportFormat? =
            switch format {
            case .strongCsv: .strongCSV
            case .hevyCsv: .hevyCSV
            case .spotterJson: .spotterJSON
            default: nil
            }
        if format != nil, importFormat == nil {
            throw SpotterError.invalid("format", "must be STRONG_CSV, HEVY_CSV or SPOTTER_JSON")
        }
        let report = try await transfer.importWorkouts(
            principal, format: importFormat, unit: unit, timeZone: timeZone, data: data)
        return ServerResponse(
            message: .with {
                $0.workoutsAdded = Int32(report.workoutsAdded)
                $0.workoutsUnchanged = Int32(report.workoutsUnchanged)
                $0.setsAdded = Int32(report.setsAdded)
                $0.templatesAdded = Int32(report.templatesAdded)
                $0.programsAdded = Int32(report.programsAdded)
                $0.measurementsAdded = Int32(report.measurementsAdded)
                $0.measurementsUnchanged = Int32(report.measurementsUnchanged)
                $0.exercisesCreated = report.exercisesCreated
                $0.notes = report.notes
                $0.workoutsSkipped = report.skipped.map { skipped in
                    .with {
                        $0.name = skipped.name
                        $0.startedAt = Spotter_V1_Timestamp(skipped.startedAt)
                        $0.reason = skipped.reason
                    }
                }
            })
    }
}
