import Foundation
import GRPCCore
import GRPCProtobuf
import SpotterProto
import SpotterTestSupport
import Testing

@Suite("Feedback")
struct FeedbackTests {
    @Test("a lifter files a bug over RPC, an admin resolves it with spotterctl, and the lifter reads the answer")
    func fileAndResolve() async throws {
        try await TestServer.with { server in
            try await server.withClient { client in
                let feedback = Spotter_V1_FeedbackService.Client(wrapping: client)
                let ada = try await signUpLifter(client, "ada")
                let bob = try await signUpLifter(client, "bob")
                let filed = try await feedback.submitFeedback(
                    .with {
                        $0.kind = .bug
                        $0.subject = "  Rest timer stops when the screen locks "
                        $0.body = "Steps: start a set, lock the phone."
                        $0.appVersion = "ios 1.4.2"
                    },
                    metadata: ada
                )
                #expect(filed.subject == "Rest timer stops when the screen locks")
                #expect(!filed.resolved)
                #expect(try await feedback.listFeedback(.init(), metadata: bob).feedback.isEmpty)

                do {
                    _ = try await feedback.submitFeedback(
                        .with { $0.body = String(repeating: "x", count: 10_001) }, metadata: ada)
                    Issue.record("invalid feedback accepted")
                } catch let error as RPCError {
                    #expect(error.code == .invalidArgument)
                    let fields = try #require(try error.unpackGoogleRPCStatus()).details.compactMap(\.badRequest)
                        .flatMap(\.violations).map(\.field)
                    #expect(fields == ["kind", "subject", "body"])
                }

                let open = try await server.database.spotterctl(["feedback", "list", "--json"])
                let items = try #require(try open.json() as? [[String: Any]])
                #expect(items.count == 1)
                #expect(items.first?["kind"] as? String == "bug")
                #expect(items.first?["id"] as? String == filed.feedbackID.lowercased())
                #expect(items.first?["status"] as? String == "open")
                #expect(items.first?["username"] as? String == "ada", "who filed it, by name")
                let ideas = try await server.database.spotterctl(["feedback", "list", "--kind", "feedback", "--json"])
                #expect((try ideas.json() as? [Any])?.isEmpty == true, "only bugs were filed")
                let bugs = try await server.database.spotterctl(["feedback", "list", "--kind", "bug"])
                #expect(bugs.output.contains("FROM") && bugs.output.contains(" ada "))
                let badKind = try await server.database.spotterctl(["feedback", "list", "--kind", "praise"])
                #expect(badKind.status == 64 && badKind.output.contains("praise"))
                let shown = try await server.database.spotterctl(["feedback", "show", filed.feedbackID])
                #expect(shown.output.contains("lock the phone") && shown.output.contains("from ada (tenant "))
                let resolved = try await server.database.spotterctl(
                    ["feedback", "resolve", filed.feedbackID, "--resolution", "Fixed in 1.4.3", "--reason", "triage"]
                )
                #expect(resolved.status == 0, "\(resolved.output)")
                let twice = try await server.database.spotterctl(
                    ["feedback", "resolve", filed.feedbackID, "--resolution", "again", "--reason", "triage"]
                )
                #expect(twice.output == "spotterctl: feedback \(filed.feedbackID) is already resolved\n")
                #expect(
                    (try await server.database.spotterctl(["feedback", "list", "--json"]).json() as? [Any])?.isEmpty
                        == true)

                let mine = try await feedback.listFeedback(.init(), metadata: ada).feedback
                #expect(mine.count == 1)
                #expect(mine.first?.resolved == true)
                #expect(mine.first?.resolution == "Fixed in 1.4.3")
                #expect(
                    try await server.database.count(
                        "SELECT count(*)::int FROM audit_log WHERE action = 'feedback.resolve'") == 1)
            }
        }
    }
}
