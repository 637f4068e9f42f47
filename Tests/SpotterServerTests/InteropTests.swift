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

    @Test("two-factor sign-in over gRPC agrees with pyotp: provisioning URI, ±1 step window, replay, recovery codes")
    func twoFactorWithPyotp() async throws {
        try await TestServer.with { server in
            let result = try await runInteropScript(
                "two_factor.py", port: server.port, certificate: server.certificatePath)
            #expect(result.status == 0, "two_factor.py failed:\n\(result.output)")
            #expect(result.output.contains("two-factor: 12 of 12 checks passed"), "\(result.output)")
        }
    }

    @Test(
        "transport limits: no TLS → closed, idle → GOAWAY then closed, stream limit advertised, oversized request → RESOURCE_EXHAUSTED, header list limit, message-less call → DEADLINE_EXCEEDED, connections per address, no CBC-SHA1"
    )
    func connectionLimits() async throws {
        // Three seconds for the TLS handshake: on a loaded two-core machine a real handshake once took
        // longer than one, and the check on it failed.
        let limits = [
            "SPOTTER_TLS_HANDSHAKE_SECONDS": "3", "SPOTTER_GRPC_IDLE_SECONDS": "1",
            "SPOTTER_GRPC_IDLE_GRACE_SECONDS": "1",
            "SPOTTER_GRPC_MAX_STREAMS": "7", "SPOTTER_RPC_DEADLINE_SECONDS": "2",
            "SPOTTER_GRPC_MAX_REQUEST_BYTES": "2048", "SPOTTER_GRPC_MAX_CONNECTIONS_PER_ADDRESS": "5",
        ]
        try await TestServer.with(environment: limits) { server in
            let result = try await runInteropScript(
                "idle_connections.py", port: server.port, certificate: server.certificatePath,
                [
                    "--handshake", "3", "--idle", "1", "--idle-grace", "1", "--max-streams", "7", "--max-request-bytes",
                    "2048",
                    "--per-address", "5", "--deadline", "2",
                ], timeout: .seconds(60))
            #expect(result.status == 0, "idle_connections.py failed:\n\(result.output)")
            #expect(result.output.contains("connections: 13 of 13 checks passed"), "\(result.output)")
        }
    }
}

extension InteropTests {
    @Test(
        "server reflection (v1 and v1alpha): grpcio-reflection lists every service, describes them, and calls work from its descriptors"
    )
    func reflection() async throws {
        try await TestServer.with { server in
            let result = try await runInteropScript(
                "reflection_check.py", port: server.port, certificate: server.certificatePath, timeout: .seconds(60))
            #expect(result.status == 0, "reflection_check.py failed:\n\(result.output)")
            #expect(result.output.contains("reflection: 11 of 11 checks passed"), "\(result.output)")
        }
    }

    @Test("deploy/: the YAML parses, every variable it sets is documented, the Job and probes use spotterctl")
    func deployFiles() async throws {
        let script = TestDatabase.repositoryRoot.appendingPathComponent("Tests/Interop/deploy_check.py").path
        let result = try await Subprocess.run("/usr/bin/env", ["python3", script], timeout: .seconds(60))
        #expect(result.status == 0, "deploy_check.py failed:\n\(result.output)")
        #expect(result.output.contains("deploy: 15 of 15 checks passed"), "\(result.output)")
    }

    @Test("the Prometheus endpoint parses with prometheus-client, has the documented metrics, and moves with calls")
    func metricsEndpoint() async throws {
        try await TestServer.with(environment: ["SPOTTER_METRICS_ADDRESS": "127.0.0.1:0"]) { server in
            let port = try #require(server.metricsPort)
            let portal = try #require(server.portalPort)
            let result = try await runInteropScript(
                "metrics_check.py", port: server.port, certificate: server.certificatePath,
                ["--metrics", "127.0.0.1:\(port)", "--portal", "https://127.0.0.1:\(portal)"], timeout: .seconds(60))
            #expect(result.status == 0, "metrics_check.py failed:\n\(result.output)")
            #expect(result.output.contains("metrics: 17 of 17 checks passed"), "\(result.output)")
        }
    }
}

/// Runs `Tests/Interop/<name>` with the tests' Python against the server on `port`, trusting
/// `certificate` (PEM); killed after `timeout`.
func runInteropScript(
    _ name: String, port: Int, certificate: String, _ arguments: [String] = [], timeout: Duration = .seconds(300)
) async throws -> Subprocess.Result {
    let script = TestDatabase.repositoryRoot.appendingPathComponent("Tests/Interop/\(name)").path
    return try await Subprocess.run(
        "/usr/bin/env", ["python3", script, "--target", "127.0.0.1:\(port)", "--ca", certificate] + arguments,
        timeout: timeout)
}
