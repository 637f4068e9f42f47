import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2
import GRPCProtobuf
import SpotterProto
import SpotterTestSupport
import Testing

@Suite("Export and import end to end over TLS")
struct TransferEndToEndTests {
    private static func sample(_ name: String) throws -> Data {
        try Data(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .appending(path: "../SpotterPostgresTests/Imports/\(name)"))
    }

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
                let file = try Self.sample("strong.csv")
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
                #expect(report.setsAdded == 8)
                #expect(report.exercisesCreated == ["Zercher Squat (Barbell)"])
                #expect(report.notes.count == 2)
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
                #expect(text.components(separatedBy: "\r\n").count == 1 + 8 + 1)

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
                #expect(exportNoFormat?.message.contains("format: is required (JSON or CSV)") == true)
                #expect(await rpcCode { _ = try await export(transfer, .json, [:]) } == .unauthenticated)
            }
        }
    }
}
