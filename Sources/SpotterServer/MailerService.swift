import Logging
import ServiceLifecycle
import SpotterCore

/// Delivers the outbox in the background: every `interval`, all due messages.
struct MailerService: Service {
    let delivery: MailDelivery
    let interval: Duration
    let logger: Logger

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    while try await delivery.deliverDue() > 0 {}
                } catch is CancellationError {
                    return
                } catch {
                    logger.error("outbox delivery stopped for now", metadata: ["error": "\(error)"])
                }
                try await Task.sleep(for: interval)
            }
        }
    }
}
