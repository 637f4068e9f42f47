import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2
import GRPCProtobuf
import SpotterCore
import SpotterProto
import SpotterTestSupport
import Testing

@Suite("Export and import end to end over TLS")
struct TransferEndToEndTests {
    /// Every chunk of an export: the first names the media type and file.
    private func export(
        _ transfer: Spotter_V1_TransferService.Client<HTTP2ClientTransport.Posix>, _ format: Spotter_V1_ExportFormat,
        _ metadata: Metadata
    ) async throws -> [Spotter_V1_ExportChunk] {
        try await transfer.exportAccount(.with { $0.format = format }, metadata: metadata) { response in
            var chunks: [Spotter_V1_ExportChunk] = []
            for try await chunk in response.messages { chunks.append(chunk) }
            return chunks
        }
    }

    @Test("a Strong file sent in small chunks is imported once; the account streams back as CSV and JSON")
    func importThenExport() async throws {
        try await TestServer.with { server in
            try await server.withClient { client in
                let ada = try await signUpLifter(client, "ada", timeZone: "Europe/Berlin")
                let transfer = Spotter_V1_TransferService.Client(wrapping: client)
                let file = try ImportSamples.data("strong.csv")
                let send: @Sendable (RPCWriter<Spotter_V1_ImportChunk>) async throws -> Void = { writer in
                    var offset = 0
                    while offset < file.count {
                        let end = min(offset + 200, file.count)
                        try await writer.write(
                            .with {
                                if offset == 0 {
                                    $0.format = .strongCsv
                                    $0.weightUnit = .lb
                                }
                                $0.data = file.subdata(in: offset..<end)
                            })
                        offset = end
                    }
                }
                let report = try await transfer.importWorkouts(metadata: ada, requestProducer: send)
                #expect(report.workoutsAdded == 2)
                #expect(report.setsAdded == 9)
                #expect(report.exercisesCreated == ["Zercher Squat (Barbell)"])
                #expect(report.notes.count == 1)
                let again = try await transfer.importWorkouts(metadata: ada, requestProducer: send)
                #expect(again.workoutsAdded == 0)
                #expect(again.workoutsUnchanged == 2)

                let csv = try await export(transfer, .csv, ada)
                #expect(csv.first?.mediaType == "text/csv")
                #expect(csv.first?.fileName == "spotter-export.csv")
                #expect(csv.dropFirst().allSatisfy { $0.mediaType.isEmpty })
                let text = String(decoding: csv.reduce(Data()) { $0 + $1.data }, as: UTF8.self)
                #expect(text.hasPrefix("date,started_at,workout_id,"))
                #expect(text.contains("2024-03-05 18:05:00,2024-03-05T17:05:00Z,"))
                #expect(text.components(separatedBy: "\r\n").count == 1 + 9 + 1)
                // The templates' and measurements' CSVs by their own formats (none of either yet).
                let templates = try await export(transfer, .templatesCsv, ada)
                #expect(templates.first?.fileName == "spotter-export.templates.csv")
                #expect(templates.first.map { String(decoding: $0.data, as: UTF8.self) } == ExportCSV.templateHeader)
                let measurements = try await export(transfer, .measurementsCsv, ada)
                #expect(measurements.first?.fileName == "spotter-export.measurements.csv")
                #expect(
                    measurements.first.map { String(decoding: $0.data, as: UTF8.self) } == ExportCSV.measurementHeader)

                let json = try await export(transfer, .json, ada)
                #expect(json.first?.mediaType == "application/json")
                let document = try #require(
                    try JSONSerialization.jsonObject(with: json.reduce(Data()) { $0 + $1.data }) as? [String: Any])
                #expect(document["format"] as? String == "spotter-export")
                #expect((document["workouts"] as? [Any])?.count == 2)
                #expect((document["profile"] as? [String: Any])?["username"] as? String == "ada")
            }
        }
    }

    @Test("refusals name the field: no format, an unreadable file, no token")
    func refusals() async throws {
        try await TestServer.with { server in
            try await server.withClient { client in
                let ada = try await signUpLifter(client, "ada")
                let transfer = Spotter_V1_TransferService.Client(wrapping: client)
                let noFormat = await rpcError {
                    _ = try await transfer.importWorkouts(metadata: ada) { writer in
                        try await writer.write(.with { $0.data = Data("a,b\n".utf8) })
                    }
                }
                #expect(noFormat?.code == .invalidArgument)
                #expect(noFormat?.message.contains("format: is required in the first message") == true)
                let unreadable = await rpcError {
                    _ = try await transfer.importWorkouts(metadata: ada) { writer in
                        try await writer.write(
                            .with {
                                $0.format = .hevyCsv
                                $0.data = Data("title,start_time\nA,B\n".utf8)
                            })
                    }
                }
                #expect(unreadable?.code == .invalidArgument)
                #expect(unreadable?.message.contains("data: is not a Hevy CSV export") == true)
                let exportNoFormat = await rpcError { _ = try await export(transfer, .unspecified, ada) }
                #expect(exportNoFormat?.code == .invalidArgument)
                #expect(
                    exportNoFormat?.message.contains(
                        "format: is required (JSON, CSV, TEMPLATES_CSV or MEASUREMENTS_CSV)") == true)
                #expect(await rpcCode { _ = try await export(transfer, .json, [:]) } == .unauthenticated)
                // More than 64 MiB, in 1 MiB messages: refused once the limit is passed, nothing stored.
                let tooLarge = await rpcError {
                    _ = try await transfer.importWorkouts(metadata: ada) { writer in
                        let chunk = Data(repeating: UInt8(ascii: "a"), count: 1 << 20)
                        for index in 0..<65 {
                            try await writer.write(
                                .with {
                                    if index == 0 { $0.format = .strongCsv }
                                    $0.data = chunk
                                })
                        }
                    }
                }
                #expect(tooLarge?.code == .invalidArgument)
                #expect(tooLarge?.message.contains("data: must be at most 64 MiB in total") == true)
            }
        }
    }

    @Test(
        "share images: the card of one's own workout as PNG, a progress chart as SVG; another lifter's workout is not found, the tier gate holds"
    )
    func shareImages() async throws {
        try await TestServer.with { server in
            try await server.withClient { client in
                let ada = try await signUpLifter(client, "ada", timeZone: "Europe/Berlin")
                let bob = try await signUpLifter(client, "bob")
                let workouts = Spotter_V1_WorkoutService.Client(wrapping: client)
                let share = Spotter_V1_ShareService.Client(wrapping: client)
                let bench = "c0000000-0000-4000-8000-000000000002"
                let logged = try await workouts.logWorkout(
                    .with {
                        $0.workout.name = "Bench <b>day</b>"
                        $0.workout.startedAt = .with { $0.unixMicros = 1_709_658_300_000_000 }
                        $0.workout.durationSeconds = 3600
                        $0.workout.exercises = [
                            .with {
                                $0.exerciseID = bench
                                $0.sets = [
                                    .with {
                                        $0.reps = 5
                                        $0.weight = .with {
                                            $0.value = 100
                                            $0.unit = .kg
                                        }
                                    }
                                ]
                            }
                        ]
                    }, metadata: ada)
                let png = try await share.getWorkoutCard(
                    .with {
                        $0.workoutID = logged.workoutID
                        $0.format = .png
                    }, metadata: ada)
                #expect(png.mediaType == "image/png")
                #expect(png.width == 1200 && png.height == 630)
                #expect(ShareImageTests.dimensions(png.data)! == (1200, 630))
                let svg = try await share.getWorkoutCard(.with { $0.workoutID = logged.workoutID }, metadata: ada)
                #expect(svg.mediaType == "image/svg+xml")
                #expect(String(decoding: svg.data, as: UTF8.self).contains("Bench &lt;b&gt;day&lt;/b&gt;"))
                let hidden = await rpcError {
                    _ = try await share.getWorkoutCard(.with { $0.workoutID = logged.workoutID }, metadata: bob)
                }
                #expect(hidden?.code == .notFound)
                #expect(hidden?.message.contains("workout not found") == true)

                let chart = try await share.getProgressChart(.with { $0.exerciseID = bench }, metadata: ada)
                #expect(String(decoding: chart.data, as: UTF8.self).contains(">Barbell Bench Press<"))
                let gated = await rpcError {
                    _ = try await share.getProgressChart(
                        .with { $0.exerciseID = "c0000000-0000-4000-8000-000000000030" }, metadata: ada)
                }
                #expect(gated?.code == .permissionDenied)
            }
        }
    }
}
