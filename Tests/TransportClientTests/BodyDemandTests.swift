import NIOConcurrencyHelpers
import Testing

@testable import TransportClient

/// A streamed body's unread bytes: reading pauses past the high mark and resumes at the low one, once.
@Suite struct BodyDemandTests {
    @Test func readingPausesPastHighAndResumesAtLowOnce() {
        let demand = BodyDemand()
        let resumes = NIOLockedValueBox(0)
        demand.onResume { resumes.withLockedValue { $0 += 1 } }
        demand.arrived(BodyDemand.high)
        #expect(!demand.isPaused, "at the mark, not past it")
        demand.arrived(1)
        #expect(demand.isPaused && demand.buffered == BodyDemand.high + 1)
        demand.read(BodyDemand.high - BodyDemand.low)
        #expect(demand.isPaused && resumes.withLockedValue { $0 } == 0, "one byte above the low mark")
        demand.read(1)
        #expect(!demand.isPaused && resumes.withLockedValue { $0 } == 1)
        demand.read(1)
        #expect(resumes.withLockedValue { $0 } == 1, "a reader already going is not woken again")
    }

    /// Tests wait for a pause instead of for time to pass; one that came before they looked is not lost.
    @Test func aPauseBeforeAnyoneWatchesIsStillSeen() async {
        let demand = BodyDemand()
        demand.arrived(BodyDemand.high + 10)
        var pauses = demand.pauses().makeAsyncIterator()
        #expect(await pauses.next() == BodyDemand.high + 10)
        demand.read(BodyDemand.high)
        demand.arrived(BodyDemand.high)
        #expect(await pauses.next() == BodyDemand.high + 10, "the next pause, seen as it comes")
    }
}
