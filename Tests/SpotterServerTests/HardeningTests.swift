import Foundation
import SpotterTestSupport
import Testing

/// The short versions of the hardening runs whose long versions are scripts (README, "Security
/// figures"): every committed fuzz corpus file replayed, 10 s of random mutation per fuzz target,
/// and three crash cycles.
@Suite("Hardening", .timeLimit(.minutes(5)))
struct HardeningTests {
    private static let root = TestDatabase.repositoryRoot

    @Test("every committed fuzz input (seeds and crashes found) runs through its target without a trap")
    func fuzzCorpus() async throws {
        let corpus = Self.root.appendingPathComponent("Tests/Fuzz/corpus")
        let targets = try FileManager.default.contentsOfDirectory(atPath: corpus.path).sorted()
        #expect(targets == ["import", "program", "push", "rows", "template", "tokens", "workout"])
        for target in targets {
            let directory = corpus.appendingPathComponent(target)
            let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
                .map { directory.appendingPathComponent($0).path }
            let result = try await Subprocess.run(
                Self.root.appendingPathComponent(".build/debug/spotter-fuzz").path, ["replay", target] + files)
            #expect(result.status == 0, "\(target): \(result.output)")
            #expect(result.output.contains("replayed \(files.count) inputs through \(target)"), "\(result.output)")
        }
    }

    @Test("10 s of random mutations of the corpus through each fuzz target: no trap")
    func fuzzMutations() async throws {
        let corpus = Self.root.appendingPathComponent("Tests/Fuzz/corpus")
        let crashes = FileManager.default.temporaryDirectory.appendingPathComponent("spotter-fuzz-\(UUID())")
        try FileManager.default.createDirectory(at: crashes, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: crashes) }
        for target in try FileManager.default.contentsOfDirectory(atPath: corpus.path).sorted() {
            let directory = corpus.appendingPathComponent(target)
            let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
                .map { directory.appendingPathComponent($0).path }
            let result = try await Subprocess.run(
                Self.root.appendingPathComponent(".build/debug/spotter-fuzz").path,
                ["mutate", target, "--seconds", "10", "--crash", crashes.appendingPathComponent(target).path] + files,
                timeout: .seconds(60))
            // A trap leaves the input in `crashes`: the output names it, for `spotter-fuzz replay`.
            #expect(result.status == 0, "\(target): \(result.output)")
            #expect(result.output.contains("through \(target) in 10 s"), "\(result.output)")
            #expect(result.output.contains("no trap"), "\(result.output)")
        }
    }

    @Test("three SIGKILL cycles of spotterd and PostgreSQL under a write load lose and duplicate nothing")
    func crashSafety() async throws {
        let result = try await Subprocess.run(
            "/usr/bin/env",
            [
                "python3", Self.root.appendingPathComponent("Tests/Interop/crash_safety.py").path,
                "--spotterd", Self.root.appendingPathComponent(".build/debug/spotterd").path, "--cycles", "3",
            ],
            timeout: .seconds(240))
        #expect(result.status == 0, "crash_safety.py failed:\n\(result.output)")
        #expect(result.output.contains("0 lost, 0 duplicated, devices converged: yes"), "\(result.output)")
    }
}
