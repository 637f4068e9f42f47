import GRPCCore
import GRPCProtobuf
import Logging
import SpotterCore
import Testing

@testable import SpotterRPC

@Suite("Request interceptor and error mapping")
struct RequestInterceptorTests {
    @Test("reads the bearer token from the authorization metadata, any case of 'Bearer'")
    func bearerToken() {
        #expect(RequestInterceptor.bearerToken(in: ["authorization": "Bearer abc"]) == "abc")
        #expect(RequestInterceptor.bearerToken(in: ["authorization": "bearer  abc "]) == "abc")
        #expect(RequestInterceptor.bearerToken(in: ["authorization": "Basic abc"]) == "")
        #expect(RequestInterceptor.bearerToken(in: [:]) == "")
    }

    @Test(
        "strips the port from peer addresses",
        arguments: [
            ("ipv4:127.0.0.1:5000", "127.0.0.1"), ("ipv6:[::1]:5000", "::1"), ("unix:/tmp/s", "/tmp/s"),
        ])
    func clientAddress(peer: String, address: String) {
        #expect(RequestInterceptor.address(of: peer) == address)
    }

    @Test("only the sign-in family and health are public")
    func publicMethods() {
        #expect(RequestInterceptor.publicMethods.contains("spotter.v1.AuthService/SignIn"))
        #expect(!RequestInterceptor.publicMethods.contains("spotter.v1.AuthService/SignOut"))
        #expect(!RequestInterceptor.publicMethods.contains("spotter.v1.AuthService/ListSessions"))
        #expect(!RequestInterceptor.publicMethods.contains("spotter.v1.AccountService/GetProfile"))
    }

    @Test("domain errors map to their gRPC codes with field details")
    func domainErrors() throws {
        let logger = Logger(label: "test")
        let cases: [(SpotterError, RPCError.Code)] = [
            (.notFound("x"), .notFound), (.alreadyExists(field: "email", reason: "is already taken"), .alreadyExists),
            (.invalid("email", "is bad"), .invalidArgument), (.failedPrecondition("x"), .failedPrecondition),
            (.permissionDenied("needs pro"), .permissionDenied), (.unauthenticated("x"), .unauthenticated),
            (.tooManyRequests("slow down", retryAfterSeconds: 3), .resourceExhausted),
            (.unavailable("x"), .unavailable),
        ]
        for (error, code) in cases {
            let mapped = try #require(RPCErrorMapping.map(error, requestID: "r1", logger: logger) as? GoogleRPCStatus)
            #expect(mapped.code == code)
        }
        let invalid = try #require(
            RPCErrorMapping.map(
                SpotterError.invalidArgument([
                    FieldViolation(field: "a", reason: "x"), FieldViolation(field: "b.c", reason: "y"),
                ]),
                requestID: "r1",
                logger: logger
            ) as? GoogleRPCStatus
        )
        #expect(invalid.message == "invalid argument: a: x; b.c: y")
        #expect(invalid.details.compactMap(\.badRequest).flatMap(\.violations).map(\.field) == ["a", "b.c"])
    }

    @Test("unknown errors become INTERNAL with only the request id")
    func internalErrors() throws {
        struct DatabaseSecret: Error { var sql = "SELECT password_hash FROM accounts" }
        let mapped = try #require(
            RPCErrorMapping.map(DatabaseSecret(), requestID: "req42", logger: Logger(label: "test")) as? RPCError)
        #expect(mapped.code == .internalError)
        #expect(mapped.message == "internal error (request id req42)")
    }
}
