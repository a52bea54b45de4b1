import NIOCore

/// The time limits of the exchanges on one connection, behind one timer.
///
/// A timer per request cost a scheduled task, a heap insertion and a cancellation for every request, and at 100
/// concurrent HTTP/2 streams each went into a heap of 100. Requests on a connection mostly share one time limit, so
/// each new deadline is later than the ones before: the timer is armed for the earliest, and moved only when a
/// request arrives with an earlier one. An exchange that ends is dropped from the schedule, not from the timer, which
/// then fires at most once for nothing and is armed again for the earliest deadline left.
struct DeadlineSchedule<Token: Hashable> {
    private var deadlines: [Token: NIODeadline] = [:]
    /// When the timer fires, while it is armed.
    private(set) var armed: NIODeadline?

    /// The exchanges with a deadline.
    var count: Int { deadlines.count }

    /// Adds `token`'s deadline; returns when the timer must now fire, when that is earlier than it was armed for (or it
    /// was not armed), and nil when it need not move. `.distantFuture` is no limit, and is not scheduled.
    mutating func add(_ token: Token, deadline: NIODeadline) -> NIODeadline? {
        guard deadline != .distantFuture else { return nil }
        deadlines[token] = deadline
        if let armed, armed <= deadline { return nil }
        armed = deadline
        return deadline
    }

    /// The exchange ended before its deadline.
    mutating func remove(_ token: Token) {
        deadlines.removeValue(forKey: token)
    }

    /// The timer fired at `now`: the exchanges whose time is up, taken out, and when to fire next (nil when none is
    /// left).
    mutating func fired(now: NIODeadline) -> (expired: [Token], next: NIODeadline?) {
        var expired: [Token] = []
        var next: NIODeadline?
        for (token, deadline) in deadlines {
            if deadline <= now {
                expired.append(token)
            } else if next.map({ deadline < $0 }) ?? true {
                next = deadline
            }
        }
        for token in expired { deadlines.removeValue(forKey: token) }
        armed = next
        return (expired, next)
    }

    /// Forgets every deadline (the connection closed); the timer is to be cancelled.
    mutating func removeAll() {
        deadlines.removeAll()
        armed = nil
    }
}

/// A connection's one timer over its ``DeadlineSchedule``, kept by its exchange handler and used on its event loop
/// only. `expire` hears the exchanges whose time is up; the timer is armed again for the earliest deadline left first,
/// so an `expire` that closes the connection stops that one too.
final class DeadlineTimer<Token: Hashable> {
    private var schedule = DeadlineSchedule<Token>()
    private var timer: Scheduled<Void>?

    /// Adds `token`'s deadline, moving the timer when it is the earliest.
    func add(_ token: Token, deadline: NIODeadline, on loop: any EventLoop, expire: @escaping ([Token]) -> Void) {
        guard let at = schedule.add(token, deadline: deadline) else { return }
        arm(at, on: loop, expire: expire)
    }

    /// The exchange ended before its deadline.
    func remove(_ token: Token) { schedule.remove(token) }

    /// The connection closed: no deadline is left, and the timer does not fire.
    func stop() {
        timer?.cancel()
        timer = nil
        schedule.removeAll()
    }

    private func arm(_ deadline: NIODeadline, on loop: any EventLoop, expire: @escaping ([Token]) -> Void) {
        timer?.cancel()
        timer = loop.assumeIsolated().scheduleTask(deadline: deadline) { [self] in
            timer = nil
            let (expired, next) = schedule.fired(now: loop.now)
            if let next { arm(next, on: loop, expire: expire) }
            if !expired.isEmpty { expire(expired) }
        }
    }
}
