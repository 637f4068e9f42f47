import Foundation
import GRPCCore
import GRPCProtobuf
import SpotterProto
import SpotterTestSupport
import Testing

@Suite("Runs end to end over TLS")
struct RunEndToEndTests {
    /// Footsteps of a straight run north at 170 steps a minute for `seconds`, headings from a compass.
    private static func samples(seconds: Double) -> [Spotter_V1_FootstepSample] {
        stride(from: 0.0, through: seconds, by: 60.0 / 170).map { t in
            .with {
                $0.offsetMs = Int64((t * 1000).rounded())
                $0.latitude = 51.5 + 3 * t / 111_195
                $0.longitude = -0.12
                $0.headingDegrees = 0
            }
        }
    }

    @Test("a swerve's turn comes to a tenth of a degree, without the trigonometry's noise")
    func swerveDegrees() async throws {
        try await TestServer.with { server in
            try await server.withClient { client in
                let ada = try await signUpLifter(client, "ada")
                // From positions alone (no compass): north for two minutes, then 60° to the right
                // for two more, 3 m/s. Bearings from positions carry floating-point noise.
                let metresPerDegree = 111_195.0
                let samples = stride(from: 0.0, through: 240, by: 60.0 / 170).map { t in
                    let straight = min(t, 120) * 3
                    let turned = max(0, t - 120) * 3
                    let north = straight + turned * cos(Double.pi / 3)
                    let east = turned * sin(Double.pi / 3)
                    return Spotter_V1_FootstepSample.with {
                        $0.offsetMs = Int64((t * 1000).rounded())
                        $0.latitude = 51.5 + north / metresPerDegree
                        $0.longitude = -0.12 + east / (metresPerDegree * cos(51.5 * Double.pi / 180))
                    }
                }
                let run = try await Spotter_V1_RunService.Client(wrapping: client).logRun(
                    .with {
                        $0.startedAt = .with {
                            $0.unixMicros = Int64((Date().timeIntervalSince1970 - 3600) * 1_000_000)
                        }
                        $0.samples = samples
                    }, metadata: ada)
                #expect(run.swerves.map(\.turnDegrees) == [60], "\(run.swerves)")
            }
        }
    }

    @Test("a logged run is analysed, is in history as a workout of Run, and bad footsteps are named")
    func logAndRead() async throws {
        try await TestServer.with { server in
            try await server.withClient { client in
                let ada = try await signUpLifter(client, "ada")
                let runs = Spotter_V1_RunService.Client(wrapping: client)
                let started = Spotter_V1_Timestamp.with {
                    $0.unixMicros = Int64((Date().timeIntervalSince1970 - 3600) * 1_000_000)
                }
                let run = try await runs.logRun(
                    .with {
                        $0.startedAt = started
                        $0.samples = Self.samples(seconds: 600)
                    }, metadata: ada)
                #expect(run.workout.name == "Run" && run.runID == run.workout.workoutID)
                #expect(abs(run.cadence - 170) < 1 && run.pauses.isEmpty && run.swerves.isEmpty)
                #expect(run.directionSource == .compass && run.minutes.count == 10)
                #expect(run.hasDistanceMeters && abs(run.distanceMeters - 1800) < 20)
                #expect(run.workout.exercises.first?.exerciseName == "Run")

                let history = try await Spotter_V1_WorkoutService.Client(wrapping: client).listWorkouts(
                    .init(), metadata: ada)
                #expect(history.workouts.map(\.workoutID) == [run.runID])
                #expect(history.workouts.first?.durationSeconds == 600)
                let again = try await runs.getRun(.with { $0.runID = run.runID }, metadata: ada)
                #expect(again == run)
                #expect(try await runs.listRuns(.init(), metadata: ada).runs.map(\.runID) == [run.runID])

                var bad = Self.samples(seconds: 30)
                bad[3].offsetMs = bad[2].offsetMs
                bad[9].headingDegrees = 360
                do {
                    _ = try await runs.logRun(
                        .with {
                            $0.startedAt = started
                            $0.samples = bad
                        }, metadata: ada)
                    Issue.record("bad footsteps accepted")
                } catch let error as RPCError {
                    #expect(error.code == .invalidArgument)
                    let status = try #require(try error.unpackGoogleRPCStatus())
                    let fields = status.details.compactMap(\.badRequest).flatMap(\.violations).map(\.field)
                    #expect(fields.contains("samples[3].offset_ms"), "\(fields)")
                    #expect(fields.contains("samples[9].heading_degrees"), "\(fields)")
                }
                #expect(try await runs.listRuns(.init(), metadata: ada).runs.count == 1, "nothing more stored")
            }
        }
    }
}
