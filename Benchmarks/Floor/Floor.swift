import ArgumentParser
import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2
import GRPCProtobuf
import SpotterProto

/// The stack's floor: a gRPC server on the transport spotterd uses (grpc-swift-2 over
/// swift-nio-transport's HTTP/2 with TLS, protobuf through grpc-swift-protobuf) that answers
/// `LogWorkout` and `ListWorkouts` with messages of the shape and size spotterd sends, and does
/// nothing else: no interceptors, no database, no validation. What spotter-load measures against
/// it is what the libraries cost per call before any of our code runs. See Benchmarks/README.md.
@main
struct Floor: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "spotter-floor",
        abstract: "A gRPC server that answers LogWorkout and ListWorkouts without doing any work."
    )

    @Option(help: "Loopback port to listen on.") var port = 50552
    @Option(help: "PEM certificate chain.") var certificate: String
    @Option(help: "PEM private key.") var key: String

    func run() async throws {
        let server = GRPCServer(
            transport: HTTP2ServerTransport.Posix(
                address: .ipv4(host: "127.0.0.1", port: port),
                transportSecurity: .tls(
                    certificateChain: [.file(path: certificate, format: .pem)],
                    privateKey: .file(path: key, format: .pem))
            ),
            services: [FloorWorkouts()]
        )
        try await server.serve()
    }
}

/// `LogWorkout` echoes the workout as spotterd would store it; `ListWorkouts` answers a fixed
/// 20-entry page. Other methods of the service are not registered (gRPC answers UNIMPLEMENTED).
struct FloorWorkouts: RegistrableRPCService {
    typealias Method = Spotter_V1_WorkoutService.Method
    let page = FloorWorkouts.historyPage()

    func registerMethods<Transport: ServerTransport>(with router: inout RPCRouter<Transport>) {
        router.registerHandler(
            forMethod: Method.LogWorkout.descriptor,
            deserializer: ProtobufDeserializer<Spotter_V1_LogWorkoutRequest>(),
            serializer: ProtobufSerializer<Spotter_V1_Workout>(),
            handler: { request, _ in
                let message = try await ServerRequest(stream: request).message
                return StreamingServerResponse(single: ServerResponse(message: Self.stored(message)))
            }
        )
        let page = self.page
        router.registerHandler(
            forMethod: Method.ListWorkouts.descriptor,
            deserializer: ProtobufDeserializer<Spotter_V1_ListWorkoutsRequest>(),
            serializer: ProtobufSerializer<Spotter_V1_ListWorkoutsResponse>(),
            handler: { request, _ in
                _ = try await ServerRequest(stream: request)
                return StreamingServerResponse(single: ServerResponse(message: page))
            }
        )
    }

    /// The workout spotterd answers a LogWorkout with: the input's fields, each exercise's name,
    /// the summary, version 1 and the times.
    static func stored(_ request: Spotter_V1_LogWorkoutRequest) -> Spotter_V1_Workout {
        let input = request.workout
        let now = Date()
        var sets = 0
        var reps = 0
        var volume = 0.0
        return .with { workout in
            workout.workoutID = request.workoutID
            workout.name = input.name
            workout.startedAt = input.startedAt
            workout.durationSeconds = input.durationSeconds
            workout.notes = input.notes
            workout.exercises = input.exercises.map { exercise in
                .with {
                    $0.exerciseID = exercise.exerciseID
                    $0.exerciseName = "Barbell Back Squat"
                    $0.notes = exercise.notes
                    $0.section = .main
                    $0.sets = exercise.sets.map { set in
                        sets += 1
                        reps += Int(set.reps)
                        volume += Double(set.reps) * set.weight.value
                        return .with {
                            $0.reps = set.reps
                            $0.weight = set.weight
                            if set.hasRpe { $0.rpe = set.rpe }
                            $0.type = set.type
                        }
                    }
                }
            }
            workout.summary = .with {
                $0.exerciseCount = Int32(input.exercises.count)
                $0.setCount = Int32(sets)
                $0.repCount = Int32(reps)
                $0.volume = .with {
                    $0.value = volume
                    $0.unit = .kg
                }
            }
            workout.version = 1
            workout.createdAt = .at(now)
            workout.updatedAt = .at(now)
        }
    }

    /// A history page of 20 entries of two exercises and ten sets each, with a page token.
    static func historyPage() -> Spotter_V1_ListWorkoutsResponse {
        let start = Date(timeIntervalSince1970: 1_790_000_000)
        return .with { page in
            page.workouts = (0..<20).map { index in
                .with {
                    $0.workoutID = UUID().uuidString.lowercased()
                    $0.name = "Squat and bench"
                    $0.startedAt = .at(start.addingTimeInterval(Double(-index) * 86_400))
                    $0.durationSeconds = 3600
                    $0.summary = .with {
                        $0.exerciseCount = 2
                        $0.setCount = 10
                        $0.repCount = 50
                        $0.volume = .with {
                            $0.value = 4_300
                            $0.unit = .kg
                        }
                    }
                }
            }
            page.nextPageToken = Data((0..<48).map { UInt8($0) }).base64EncodedString()
        }
    }
}

extension Spotter_V1_Timestamp {
    static func at(_ date: Date) -> Self {
        .with { $0.unixMicros = Int64(date.timeIntervalSince1970 * 1_000_000) }
    }
}
