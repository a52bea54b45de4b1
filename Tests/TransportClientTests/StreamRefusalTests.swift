import NIOHTTP2
import Testing

@testable import TransportClient

/// How a stream the server reset reaches the exchange: retried when it went unprocessed, named by its code otherwise.
@Suite struct StreamRefusalTests {
    @Test func anUnprocessedStreamIsRefusedSoItMayBeRetried() {
        let refused = StreamRefusal.failure(.refusedStream, on: 1, lastStreamID: nil)
        guard case .refused = refused else { Issue.record("\(refused)"); return }
        let aboveGoAway = StreamRefusal.failure(.cancel, on: 5, lastStreamID: 3)
        guard case .refused = aboveGoAway else { Issue.record("\(aboveGoAway)"); return }
        // At or below the last stream ID the server may have processed it: not refused.
        let atGoAway = StreamRefusal.failure(.cancel, on: 3, lastStreamID: 3)
        guard case .streamReset("CANCEL") = atGoAway else { Issue.record("\(atGoAway)"); return }
    }

    /// Any other reset is named as RFC 9113 names its code, not as NIO's type dump.
    @Test func anotherResetIsNamedByItsCode() {
        for (code, name) in [(HTTP2ErrorCode.internalError, "INTERNAL_ERROR"), (.http11Required, "HTTP_1_1_REQUIRED"),
                             (.cancel, "CANCEL"), (HTTP2ErrorCode(networkCode: 0x42), "error code 0x42")] {
            let reset = StreamRefusal.failure(code, on: 1, lastStreamID: nil)
            guard case .streamReset(let named) = reset else { Issue.record("\(reset)"); continue }
            #expect(named == name)
        }
    }
}
