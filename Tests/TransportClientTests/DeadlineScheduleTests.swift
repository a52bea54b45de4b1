import NIOCore
import Testing

@testable import TransportClient

/// The time limits of one connection's exchanges behind one timer, as values: no event loop.
@Suite struct DeadlineScheduleTests {
    private let start = NIODeadline.uptimeNanoseconds(1_000_000_000)

    @Test func theTimerIsArmedForTheEarliestAndMovesOnlyEarlier() {
        var schedule = DeadlineSchedule<Int>()
        #expect(schedule.add(1, deadline: start + .seconds(30)) == start + .seconds(30), "the first arms the timer")
        #expect(schedule.add(2, deadline: start + .seconds(31)) == nil, "a later one leaves it")
        #expect(schedule.add(3, deadline: start + .seconds(5)) == start + .seconds(5), "an earlier one moves it")
        #expect(schedule.armed == start + .seconds(5) && schedule.count == 3)
        #expect(schedule.add(4, deadline: .distantFuture) == nil && schedule.count == 3, "no limit is not scheduled")
    }

    @Test func firingTakesOutWhatIsDueAndNamesTheNextDeadline() {
        var schedule = DeadlineSchedule<Int>()
        _ = schedule.add(1, deadline: start + .seconds(1))
        _ = schedule.add(2, deadline: start + .seconds(1))
        _ = schedule.add(3, deadline: start + .seconds(3))
        _ = schedule.add(4, deadline: start + .seconds(2))
        let (expired, next) = schedule.fired(now: start + .seconds(1))
        #expect(Set(expired) == [1, 2])
        #expect(next == start + .seconds(2) && schedule.armed == next && schedule.count == 2)
        let (later, none) = schedule.fired(now: start + .seconds(5))
        #expect(Set(later) == [3, 4] && none == nil && schedule.armed == nil)
    }

    /// An exchange that ended is not expired when the timer fires, which then fires for nothing only once.
    @Test func anEndedExchangeIsNotExpired() {
        var schedule = DeadlineSchedule<Int>()
        _ = schedule.add(1, deadline: start + .seconds(1))
        _ = schedule.add(2, deadline: start + .seconds(4))
        schedule.remove(1)
        let (expired, next) = schedule.fired(now: start + .seconds(1))
        #expect(expired.isEmpty && next == start + .seconds(4))
        schedule.remove(2)
        let (none, after) = schedule.fired(now: start + .seconds(4))
        #expect(none.isEmpty && after == nil)
        #expect(schedule.add(3, deadline: start + .seconds(9)) == start + .seconds(9), "an idle schedule arms again")
    }

    @Test func removingAllDisarms() {
        var schedule = DeadlineSchedule<Int>()
        _ = schedule.add(1, deadline: start + .seconds(1))
        schedule.removeAll()
        #expect(schedule.count == 0 && schedule.armed == nil)
        #expect(schedule.fired(now: start + .seconds(2)).expired.isEmpty)
    }
}
