import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2
import SpotterProto

/// The transfer scenario: a Strong CSV of ten years of training (5,000 workouts of 4 exercises ×
/// 5 sets: 100,000 rows, written here) imported into a new account over ImportWorkouts in 1 MiB
/// chunks, imported again (nothing to add), then the account exported as CSV and as JSON.
enum TransferBenchmark {
    static let workouts = 5000

    static func run(client: GRPCClient<HTTP2ClientTransport.Posix>, prefix: String) async throws {
        let name = "\(prefix)_transfer_\(Int(Date().timeIntervalSince1970))"
        let lifter = try await Lifters.signIn(name, client)
        let transfer = Spotter_V1_TransferService.Client(wrapping: client)
        let file = strongCSV()
        print(
            String(
                format: "transfer file: %d workouts, %d rows, %.1f MB", workouts, workouts * 20,
                Double(file.count) / 1e6))

        for pass in ["first import", "second import"] {
            let started = ContinuousClock.now
            let report = try await transfer.importWorkouts(metadata: lifter.metadata) { writer in
                var offset = 0
                while offset < file.count {
                    let end = min(offset + (1 << 20), file.count)
                    try await writer.write(
                        .with {
                            if offset == 0 {
                                $0.format = .strongCsv
                                $0.weightUnit = .kg
                            }
                            $0.data = file.subdata(in: offset..<end)
                        })
                    offset = end
                }
            }
            let seconds = milliseconds(ContinuousClock.now - started) / 1000
            print(
                String(
                    format: "%@: %.2f s (%d added, %d unchanged, %d sets, %d skipped), %.0f rows/s", pass, seconds,
                    report.workoutsAdded, report.workoutsUnchanged, report.setsAdded, report.workoutsSkipped.count,
                    Double(workouts * 20) / seconds))
        }
        for format in [Spotter_V1_ExportFormat.csv, .json] {
            let started = ContinuousClock.now
            let (chunks, bytes) = try await transfer.exportAccount(
                .with { $0.format = format }, metadata: lifter.metadata
            ) { response in
                var chunks = 0
                var bytes = 0
                for try await chunk in response.messages {
                    chunks += 1
                    bytes += chunk.data.count
                }
                return (chunks, bytes)
            }
            let seconds = milliseconds(ContinuousClock.now - started) / 1000
            print(
                String(
                    format: "export %@: %.2f s, %.1f MB in %d chunks", format == .csv ? "CSV" : "JSON", seconds,
                    Double(bytes) / 1e6, chunks))
        }
    }

    /// Ten years, a workout about every 17.5 hours, in Strong's current layout.
    static func strongCSV() -> Data {
        var text =
            "Date,Workout Name,Duration,Exercise Name,Set Order,Weight,Reps,Distance,Seconds,Notes,Workout Notes,RPE\n"
        let exercises = ["Squat (Barbell)", "Bench Press (Barbell)", "Deadlift (Barbell)", "Bent Over Row (Barbell)"]
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        let start = Date().addingTimeInterval(-Double(workouts) * 63_000)
        for index in 0..<workouts {
            let c = calendar.dateComponents(
                [.year, .month, .day, .hour, .minute], from: start.addingTimeInterval(Double(index) * 63_000))
            let date = String(format: "%04d-%02d-%02d %02d:%02d:00", c.year!, c.month!, c.day!, c.hour!, c.minute!)
            for (position, exercise) in exercises.enumerated() {
                for set in 1...5 {
                    let weight = 60 + (index % 40) + position * 10
                    text += "\(date),\"Day \(index % 4 + 1), heavy\",1h 5m,\(exercise),\(set),\(weight).5,5,0,0,,,8\n"
                }
            }
        }
        return Data(text.utf8)
    }
}
