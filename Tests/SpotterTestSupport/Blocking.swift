import Dispatch

/// Runs `body`, which blocks its thread (a child process waited for with `waitpid`, a lock file) or
/// computes for seconds, on a Dispatch thread rather than one of Swift's cooperative pool, which has
/// one thread per core: `initdb` and `pg_ctl` hold a thread for seconds, and every other test waits
/// for the rest.
public func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(with: Result { try body() }) }
    }
}
