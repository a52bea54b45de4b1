import NIOCore
import NIOEmbedded
import Testing

@testable import TransportClient

/// Flushes asked for in one turn of the event loop leave as one, after the tasks already queued.
@Suite struct FlushCoalescingHandlerTests {
    /// Counts the flushes that reach the socket.
    final class FlushCounter: ChannelOutboundHandler {
        typealias OutboundIn = NIOAny
        var flushes = 0

        func flush(context: ChannelHandlerContext) {
            flushes += 1
            context.flush()
        }
    }

    private func channel() throws -> (EmbeddedChannel, FlushCounter, FlushCoalescingHandler) {
        let channel = EmbeddedChannel()
        let counter = FlushCounter(), coalescer = FlushCoalescingHandler()
        try channel.pipeline.syncOperations.addHandler(counter)
        try channel.pipeline.syncOperations.addHandler(coalescer)
        return (channel, counter, coalescer)
    }

    private func written(_ channel: EmbeddedChannel) throws -> [String] {
        var out: [String] = []
        while let buffer = try channel.readOutbound(as: ByteBuffer.self) { out.append(String(buffer: buffer)) }
        return out
    }

    @Test func twoFlushesInOneTurnLeaveAsOneOnceTheQueuedTasksHaveRun() throws {
        let (channel, counter, _) = try channel()
        channel.write(ByteBuffer(string: "first"), promise: nil)
        channel.flush()
        channel.write(ByteBuffer(string: "second"), promise: nil)
        channel.flush()
        #expect(counter.flushes == 0)
        #expect(try written(channel) == [])
        channel.embeddedEventLoop.run()
        #expect(counter.flushes == 1)
        #expect(try written(channel) == ["first", "second"])
    }

    @Test func aFlushAfterTheLoopRanIsOneOfItsOwn() throws {
        let (channel, counter, _) = try channel()
        channel.writeAndFlush(ByteBuffer(string: "first"), promise: nil)
        channel.embeddedEventLoop.run()
        channel.writeAndFlush(ByteBuffer(string: "second"), promise: nil)
        channel.embeddedEventLoop.run()
        #expect(counter.flushes == 2)
        #expect(try written(channel) == ["first", "second"])
    }

    @Test func aWriteWithoutAFlushStaysUnsent() throws {
        let (channel, counter, _) = try channel()
        channel.write(ByteBuffer(string: "held"), promise: nil)
        channel.embeddedEventLoop.run()
        #expect(counter.flushes == 0)
        #expect(try written(channel) == [])
    }

    @Test func removedWithAFlushScheduledItFlushesAtOnceAndNotAgain() throws {
        let (channel, counter, coalescer) = try channel()
        channel.writeAndFlush(ByteBuffer(string: "first"), promise: nil)
        try channel.pipeline.syncOperations.removeHandler(coalescer).wait()
        #expect(counter.flushes == 1)
        #expect(try written(channel) == ["first"])
        channel.embeddedEventLoop.run()
        #expect(counter.flushes == 1)
    }
}
