import Foundation
import GRPCCore
import SpotterCore
import SpotterProto

/// `spotter.v1.AuthService`: validates nothing itself beyond proto shapes; `AuthService` decides.
public struct AuthHandler: Spotter_V1_AuthService.SimpleServiceProtocol {
    private let auth: AuthService

    public init(auth: AuthService) {
        self.auth = auth
    }

    public func register(request: Spotter_V1_RegisterRequest, context: ServerContext) async throws
        -> Spotter_V1_RegisterResponse
    {
        let principal = try await auth.register(
            AuthService.Registration(
                email: request.email,
                username: request.username,
                password: request.password,
                kind: TenantKind(request.kind),
                displayName: request.displayName.isEmpty ? nil : request.displayName,
                timeZone: request.timeZone.isEmpty ? nil : request.timeZone,
                unit: WeightUnit(request.unit),
                unreadUnit: request.unit != .unspecified && WeightUnit(request.unit) == nil,
                address: RequestContext.current?.clientAddress ?? ""
            )
        )
        return .with {
            $0.tenantID = principal.tenantID.description
            $0.accountID = principal.accountID.description
        }
    }

    public func verifyEmail(request: Spotter_V1_VerifyEmailRequest, context: ServerContext) async throws
        -> Spotter_V1_VerifyEmailResponse
    {
        try await auth.verifyEmail(token: request.token)
        return Spotter_V1_VerifyEmailResponse()
    }

    public func signIn(request: Spotter_V1_SignInRequest, context: ServerContext) async throws -> Spotter_V1_TokenPair {
        let result = try await auth.signIn(
            login: request.login,
            password: request.password,
            deviceLabel: request.deviceLabel,
            deviceToken: request.deviceToken,
            address: RequestContext.current?.clientAddress ?? ""
        )
        switch result {
        case .signedIn(let tokens):
            return Spotter_V1_TokenPair(tokens)
        case .secondFactorRequired(let challenge, let expiresAt):
            return .with {
                $0.mfaChallenge = .with {
                    $0.challenge = challenge
                    $0.expiresAt = Spotter_V1_Timestamp(expiresAt)
                }
            }
        }
    }

    public func completeSignIn(request: Spotter_V1_CompleteSignInRequest, context: ServerContext) async throws
        -> Spotter_V1_TokenPair
    {
        Spotter_V1_TokenPair(try await auth.completeSignIn(challenge: request.challenge, code: request.code))
    }

    public func beginMfaEnrollment(request: Spotter_V1_BeginMfaEnrollmentRequest, context: ServerContext)
        async throws -> Spotter_V1_MfaEnrollment
    {
        let enrollment = try await auth.beginTwoFactor(try RequestContext.principal())
        return .with {
            $0.secret = enrollment.secret
            $0.provisioningUri = enrollment.provisioningURI
        }
    }

    public func confirmMfa(request: Spotter_V1_ConfirmMfaRequest, context: ServerContext) async throws
        -> Spotter_V1_ConfirmMfaResponse
    {
        let codes = try await auth.confirmTwoFactor(try RequestContext.principal(), code: request.code)
        return .with { $0.recoveryCodes = codes }
    }

    public func disableMfa(request: Spotter_V1_DisableMfaRequest, context: ServerContext) async throws
        -> Spotter_V1_DisableMfaResponse
    {
        try await auth.disableTwoFactor(try RequestContext.principal(), code: request.code)
        return Spotter_V1_DisableMfaResponse()
    }

    public func regenerateRecoveryCodes(
        request: Spotter_V1_RegenerateRecoveryCodesRequest, context: ServerContext
    ) async throws -> Spotter_V1_RegenerateRecoveryCodesResponse {
        let codes = try await auth.regenerateRecoveryCodes(try RequestContext.principal(), code: request.code)
        return .with { $0.recoveryCodes = codes }
    }

    public func refresh(request: Spotter_V1_RefreshRequest, context: ServerContext) async throws -> Spotter_V1_TokenPair
    {
        Spotter_V1_TokenPair(try await auth.refresh(refreshToken: request.refreshToken))
    }

    public func signOut(request: Spotter_V1_SignOutRequest, context: ServerContext) async throws
        -> Spotter_V1_SignOutResponse
    {
        try await auth.signOut(try RequestContext.principal())
        return Spotter_V1_SignOutResponse()
    }

    public func requestPasswordReset(request: Spotter_V1_RequestPasswordResetRequest, context: ServerContext)
        async throws -> Spotter_V1_RequestPasswordResetResponse
    {
        try await auth.requestPasswordReset(
            email: request.email, address: RequestContext.current?.clientAddress ?? "")
        return Spotter_V1_RequestPasswordResetResponse()
    }

    public func completePasswordReset(request: Spotter_V1_CompletePasswordResetRequest, context: ServerContext)
        async throws -> Spotter_V1_CompletePasswordResetResponse
    {
        try await auth.completePasswordReset(token: request.token, newPassword: request.newPassword)
        return Spotter_V1_CompletePasswordResetResponse()
    }

    public func listSessions(request: Spotter_V1_ListSessionsRequest, context: ServerContext) async throws
        -> Spotter_V1_ListSessionsResponse
    {
        let principal = try RequestContext.principal()
        let sessions = try await auth.sessions(principal)
        return .with {
            $0.sessions = sessions.map { session in
                .with {
                    $0.sessionID = session.id.description
                    $0.deviceLabel = session.deviceLabel
                    $0.signInAddress = session.address ?? ""
                    $0.createdAt = Spotter_V1_Timestamp(session.createdAt)
                    $0.lastUsedAt = Spotter_V1_Timestamp(session.lastUsedAt)
                    $0.expiresAt = Spotter_V1_Timestamp(session.expiresAt)
                    $0.current = session.id == principal.sessionID
                }
            }
        }
    }

    public func revokeSession(request: Spotter_V1_RevokeSessionRequest, context: ServerContext) async throws
        -> Spotter_V1_RevokeSessionResponse
    {
        let principal = try RequestContext.principal()
        guard let session = SessionID(request.sessionID) else {
            throw SpotterError.invalid("session_id", "must be a session id from ListSessions")
        }
        try await auth.revokeSession(principal, session)
        return Spotter_V1_RevokeSessionResponse()
    }

    public func resendVerificationEmail(
        request: Spotter_V1_ResendVerificationEmailRequest, context: ServerContext
    ) async throws -> Spotter_V1_ResendVerificationEmailResponse {
        try await auth.resendVerification(try RequestContext.principal())
        return Spotter_V1_ResendVerificationEmailResponse()
    }

    public func changePassword(request: Spotter_V1_ChangePasswordRequest, context: ServerContext) async throws
        -> Spotter_V1_ChangePasswordResponse
    {
        let ended = try await auth.changePassword(
            try RequestContext.principal(), current: request.currentPassword, new: request.newPassword,
            address: RequestContext.current?.clientAddress ?? "")
        return .with { $0.sessionsEnded = Int32(ended) }
    }

    public func changeEmail(request: Spotter_V1_ChangeEmailRequest, context: ServerContext) async throws
        -> Spotter_V1_ChangeEmailResponse
    {
        try await auth.changeEmail(
            try RequestContext.principal(), password: request.password, code: request.code,
            newEmail: request.newEmail,
            address: RequestContext.current?.clientAddress ?? "")
        return Spotter_V1_ChangeEmailResponse()
    }

    public func cancelEmailChange(request: Spotter_V1_CancelEmailChangeRequest, context: ServerContext)
        async throws -> Spotter_V1_CancelEmailChangeResponse
    {
        try await auth.cancelEmailChange(try RequestContext.principal())
        return Spotter_V1_CancelEmailChangeResponse()
    }

    public func changeUsername(request: Spotter_V1_ChangeUsernameRequest, context: ServerContext) async throws
        -> Spotter_V1_ChangeUsernameResponse
    {
        try await auth.changeUsername(try RequestContext.principal(), to: request.newUsername)
        return Spotter_V1_ChangeUsernameResponse()
    }

    public func deleteAccount(request: Spotter_V1_DeleteAccountRequest, context: ServerContext) async throws
        -> Spotter_V1_DeleteAccountResponse
    {
        _ = try await auth.deleteAccount(
            try RequestContext.principal(), password: request.password, code: request.code,
            address: RequestContext.current?.clientAddress ?? "")
        return Spotter_V1_DeleteAccountResponse()
    }
}
