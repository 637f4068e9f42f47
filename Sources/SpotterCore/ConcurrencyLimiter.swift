import Dispatch

/// Runs work `limit` at a time, with a bounded line: when `maxWaiting` callers already wait, the
/// next is refused at once (`tooManyRequests`, "the server is busy <work>") rather than queued
/// behind minutes of work. A waiter whose task is cancelled (its client gave up) leaves the line,
/// and work whose caller is gone by its turn never starts.
public actor ConcurrencyLimiter {
    private let limit: Int
    private let maxWaiting: Int
    private let work: String
    private var running = 0
    private var waiting: [(id: UInt64, continuation: CheckedContinuation<Void, any Error>)] = []
    private var nextWaiterID: UInt64 = 0

    /// `work` names what is limited in the refusal: "checking passwords", "rendering images".
    public init(limit: Int, maxWaiting: Int = .max, work: String) {
        self.limit = max(1, limit)
        self.maxWaiting = max(0, maxWaiting)
        self.work = work
    }

    /// Callers waiting for a turn now.
    public var waitingCount: Int { waiting.count }

    /// Work running now.
    public var runningCount: Int { running }

    /// Runs blocking work in its turn on Dispatch's threads (never the cooperative pool).
    public func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await run(waiting: {
            try await withCheckedThrowingContinuation { continuation in
                DispatchQueue.global(qos: .userInitiated).async {
                    continuation.resume(with: Result { try body() })
                }
            }
        })
    }

    /// Runs work that waits rather than blocks a thread (for a child process) in its turn.
    public func run<T: Sendable>(waiting body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await acquire()
        defer { release() }
        try Task.checkCancellation()
        return try await body()
    }

    private func acquire() async throws {
        if running < limit {
            running += 1
            return
        }
        guard waiting.count < maxWaiting else {
            throw SpotterError.tooManyRequests(
                "the server is busy \(work); try again in a second", retryAfterSeconds: 1)
        }
        let id = nextWaiterID
        nextWaiterID += 1
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                if Task.isCancelled {
                    continuation.resume(throwing: CancellationError())
                } else {
                    waiting.append((id, continuation))
                }
            }
        } onCancel: {
            Task { await self.leave(id) }
        }
    }

    /// Takes a cancelled waiter out of the line; one already given its turn releases it in `run`.
    private func leave(_ id: UInt64) {
        guard let index = waiting.firstIndex(where: { $0.id == id }) else { return }
        waiting.remove(at: index).continuation.resume(throwing: CancellationError())
    }

    /// Hands the slot to the next waiter, or frees it.
    private func release() {
        if waiting.isEmpty {
            running -= 1
        } else {
            waiting.removeFirst().continuation.resume()
        }
    }
}
