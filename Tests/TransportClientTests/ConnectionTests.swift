import NIOCore
import Testing

@testable import TransportClient

/// How a connection names its limits.
@Suite struct ConnectionTests {
    @Test(arguments: [
        (Duration.seconds(10), "10"), (.milliseconds(2500), "2.5"), (.nanoseconds(3_999_663_634), "4"),
        (.nanoseconds(1_234_567_890), "1.235"), (.microseconds(287), "0.000287"), (.nanoseconds(100), "0.000001"),
        (.zero, "0"), (.nanoseconds(-287_422), "0"),
    ])
    func secondsAreRoundedForPeopleAndNeverNegative(_ duration: Duration, _ text: String) {
        #expect(duration.secondsText == text)
    }

    @Test func aConnectTimeoutNamesTheLimitThatRanOut() {
        // What Connection.open hands NIO when the request's time had already run out: its 1 ms floor.
        let spent = max(min(TimeAmount.seconds(10), .nanoseconds(-287_422)), .milliseconds(1))
        #expect(Connection.connectTimeoutMessage(address: "127.0.0.1", port: 9443, limit: spent, byRequestLimit: true)
                == "the TCP connection to 127.0.0.1:9443 did not open within 0.001 s, what was left of the request's time limit")
        #expect(Connection.connectTimeoutMessage(address: "192.0.2.1", port: 443, limit: .seconds(10), byRequestLimit: false)
                == "the TCP connection to 192.0.2.1:443 did not open within 10 s, the connect time limit")
    }
}
