import Foundation
import SpotterTestSupport
import Testing

@Suite("Interoperability")
struct InteropTests {
    @Test("Python's grpcio calls the server over TLS with stubs generated from our .proto files")
    func pythonGRPCClient() async throws {
        try await TestServer.with { server in
            let result = try await runInteropScript(
                "interop_test.py", port: server.port, certificate: server.certificatePath)
            #expect(result.status == 0, "interop_test.py failed:\n\(result.output)")
            #expect(result.output.contains("interop: 11 of 11 checks passed"), "\(result.output)")
        }
    }
}

/// Runs `Tests/Interop/<name>` with the tests' Python against the server on `port`, trusting
/// `certificate` (PEM); killed after `timeout`.
func runInteropScript(_ name: String, port: Int, certificate: String, timeout: Duration = .seconds(300))
    async throws -> Subprocess.Result
{
    let script = TestDatabase.repositoryRoot.appendingPathComponent("Tests/Interop/\(name)").path
    return try await Subprocess.run(
        "/usr/bin/env", ["python3", script, "--target", "127.0.0.1:\(port)", "--ca", certificate], timeout: timeout)
}
