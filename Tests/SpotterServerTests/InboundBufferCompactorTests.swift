import NIOCore
import NIOEmbedded
import Testing

@testable import SpotterServer

@Suite("Decrypted reads go on to HTTP/2 in buffers of their own size")
struct InboundBufferCompactorTests {
    @Test("a read from a large buffer arrives with the same bytes in a small buffer of its own")
    func compacts() throws {
        let channel = EmbeddedChannel(handler: InboundBufferCompactor())
        // As NIOSSL hands on its 32 kB plaintext buffer with a few bytes in it.
        var decrypted = channel.allocator.buffer(capacity: 32 * 1024)
        decrypted.writeBytes(Array(repeating: 0x50, count: 300))
        try channel.writeInbound(decrypted)

        let passed = try #require(try channel.readInbound(as: ByteBuffer.self))
        #expect(passed == decrypted)
        #expect(passed.readableBytes == 300)
        #expect(passed.capacity < 1024, "capacity \(passed.capacity): the large buffer's storage went on")
        #expect(try channel.readInbound(as: ByteBuffer.self) == nil)
        #expect(try channel.finish().isClean)
    }

    @Test("an empty read stays empty and reads keep their order")
    func order() throws {
        let channel = EmbeddedChannel(handler: InboundBufferCompactor())
        for text in ["first", "", "third"] {
            try channel.writeInbound(channel.allocator.buffer(string: text))
        }
        var seen: [String] = []
        while let buffer = try channel.readInbound(as: ByteBuffer.self) {
            seen.append(String(buffer: buffer))
        }
        #expect(seen == ["first", "", "third"])
        #expect(try channel.finish().isClean)
    }
}
