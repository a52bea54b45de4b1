import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import NIOHTTP2
import Testing

@testable import TransportClient

/// How a stream the server reset reaches the exchange: retried when it went unprocessed, named by its code otherwise.
@Suite struct StreamRefusalTests {
    private final class ErrorCatcher: ChannelInboundHandler {
        typealias InboundIn = Any
        var errors: [any Error] = []
        func errorCaught(context: ChannelHandlerContext, error: any Error) { errors.append(error) }
    }

    private func caught(_ error: any Error, goingAway: HTTP2StreamID? = nil) throws -> (any Error)? {
        let channel = EmbeddedChannel()
        let catcher = ErrorCatcher()
        try channel.pipeline.syncOperations.addHandler(StreamRefusal(goingAway: NIOLockedValueBox(goingAway)))
        try channel.pipeline.syncOperations.addHandler(catcher)
        channel.pipeline.fireErrorCaught(error)
        return catcher.errors.first
    }

    @Test func anUnprocessedStreamIsRefusedSoItMayBeRetried() throws {
        let refused = try caught(NIOHTTP2Errors.streamClosed(streamID: 1, errorCode: .refusedStream))
        guard case ExchangeFailure.refused? = refused else { Issue.record("\(String(describing: refused))"); return }
        let aboveGoAway = try caught(NIOHTTP2Errors.streamClosed(streamID: 5, errorCode: .cancel), goingAway: 3)
        guard case ExchangeFailure.refused? = aboveGoAway else { Issue.record("\(String(describing: aboveGoAway))"); return }
    }

    /// Any other reset is named as RFC 9113 names its code, not as NIO's type dump.
    @Test func anotherResetIsNamedByItsCode() throws {
        for (code, name) in [(HTTP2ErrorCode.internalError, "INTERNAL_ERROR"), (.http11Required, "HTTP_1_1_REQUIRED"),
                             (.cancel, "CANCEL"), (HTTP2ErrorCode(networkCode: 0x42), "error code 0x42")] {
            let reset = try caught(NIOHTTP2Errors.streamClosed(streamID: 1, errorCode: code))
            guard case ExchangeFailure.streamReset(let named)? = reset else { Issue.record("\(String(describing: reset))"); continue }
            #expect(named == name)
        }
    }
}
