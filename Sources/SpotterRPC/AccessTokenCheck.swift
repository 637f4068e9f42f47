import SpotterCore

/// Keeps a long stream honest about its caller: checks the access token again every `interval`.
struct AccessTokenCheck: Sendable {
    let auth: AuthService
    let interval: Duration

    /// Returns never; throws `unauthenticated` once `token` stops being valid (expired, its session
    /// revoked, the account disabled). A database that is away leaves the stream open until the
    /// next check.
    func run(_ token: String, stream: String) async throws {
        while true {
            try await Task.sleep(for: interval)
            do {
                _ = try await auth.authenticate(accessToken: token)
            } catch SpotterError.unauthenticated(let message, let state) {
                throw SpotterError.unauthenticated(
                    "\(message); the \(stream) stream ended, open it again with a fresh token", token: state)
            } catch {
                continue  // The database is away: the next check decides.
            }
        }
    }
}
