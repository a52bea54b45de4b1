import Foundation
import NIOCore
import Testing

@testable import TransportClient

/// NIO's connect errors, read as reasons and said in words; NIO's own text never reaches the message.
@Suite struct ConnectFailureTests {
    @Test(arguments: [
        (ECONNREFUSED, ConnectFailure.refused), (ECONNRESET, .reset), (ETIMEDOUT, .timedOut), (ENETUNREACH, .unreachable),
        (EHOSTUNREACH, .unreachable), (EACCES, .denied),
    ])
    func anErrnoIsReadAsItsReason(_ code: CInt, _ reason: ConnectFailure) {
        #expect(ConnectFailure(IOError(errnoCode: code, reason: "connect")) == reason)
    }

    @Test func aTimeoutAndAnUnknownErrorAreReadToo() {
        #expect(ConnectFailure(ChannelError.connectTimeout(.seconds(1))) == .timedOut)
        #expect(ConnectFailure(ChannelError.ioOnClosedChannel) == .other(nil))
        #expect(ConnectFailure(IOError(errnoCode: EMFILE, reason: "socket")) == .other(String(cString: strerror(EMFILE))))
    }

    @Test func eachSentenceNamesThePlaceAndWhatToCheck() {
        #expect(ConnectFailure.refused.sentence(address: "127.0.0.1", port: 1)
                == "127.0.0.1:1 refused the connection: nothing listens on port 1 there; check the port, and that the server is running")
        #expect(ConnectFailure.reset.sentence(address: "::1", port: 443).hasPrefix("[::1]:443 reset the connection"))
        #expect(ConnectFailure.hostNotFound(temporary: false).sentence(address: "nowhere.example", port: 443)
                .hasPrefix("the host name nowhere.example was not found"))
        #expect(ConnectFailure.hostNotFound(temporary: true).sentence(address: "nowhere.example", port: 443).contains("resolver did not answer"))
        #expect(ConnectFailure.timedOut.sentence(address: "192.0.2.1", port: 443).contains("timed out"))
        #expect(ConnectFailure.other(nil).sentence(address: "192.0.2.1", port: 443) == "cannot connect to 192.0.2.1:443")
    }
}
