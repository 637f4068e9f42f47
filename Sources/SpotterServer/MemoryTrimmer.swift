import ServiceLifecycle

#if canImport(Glibc)
    import Glibc
#endif

/// Hands memory that glibc's allocator keeps after it is freed back to the system, once an
/// interval (`malloc_trim(0)`: the top of every arena and the whole free pages inside them).
///
/// Under a long mixed load spotterd's RSS rose in steps and settled about 15 MB above its level
/// after five minutes, while its live heap never passed 7.4 MB (heaptrack): memory freed on the
/// threads of the cooperative pool, NIO's event loops and the connections' queues stays in their
/// arenas (Benchmarks/README.md, "Connections and memory"). A trim holds each arena's lock for a
/// moment; once a minute that costs nothing measurable.
struct MemoryTrimmer: Service {
    let interval: Duration

    func run() async throws {
        let trim = Self.mallocTrim
        await periodically(every: interval) { _ = trim?(0) }
    }

    /// glibc's `malloc_trim`, looked up at run time (`malloc.h` is not part of the Glibc module);
    /// `nil` elsewhere.
    static let mallocTrim: (@convention(c) (Int) -> Int32)? = {
        #if canImport(Glibc)
            guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return nil }
            return unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
        #else
            return nil
        #endif
    }()
}
