import Testing

@testable import SpotterServer

@Suite("Memory trimmer")
struct MemoryTrimmerTests {
    #if canImport(Glibc)
        @Test("finds glibc's malloc_trim, which answers whether it returned memory (0 or 1)")
        func trims() {
            let trim = MemoryTrimmer.mallocTrim
            #expect(trim != nil)
            let answer = trim?(0)
            #expect(answer == 0 || answer == 1)
        }
    #endif
}
