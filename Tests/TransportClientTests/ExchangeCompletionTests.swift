import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import Testing

@testable import TransportClient

/// One exchange's head and end, handed to whoever waits, in either order, exactly once.
@Suite struct ExchangeCompletionTests {
    private let head = HTTPResponseHead(version: .http1_1, status: .ok)
    private func end(_ body: [UInt8] = [1, 2, 3]) -> ExchangeEnd { ExchangeEnd(head: head, body: body, reusable: true) }

    /// A task that waits for `completion`'s head, once it has registered: the test then completes it.
    private func waitingForHead(_ completion: ExchangeCompletion) async -> Task<Void, any Error> {
        let (registered, signal) = AsyncStream<Void>.makeStream()
        let task = Task {
            try await withUnsafeThrowingContinuation { continuation in
                completion.awaitHead(continuation)
                signal.yield()
            }
        }
        for await _ in registered { break }
        return task
    }

    @Test func aTaskWaitingForTheHeadGetsItThenTheEnd() async throws {
        let completion = ExchangeCompletion()
        let received = await waitingForHead(completion)
        #expect(completion.head == nil && completion.outcome == nil)
        completion.received(head)
        try await received.value
        #expect(try completion.receivedHead().status == .ok)
        #expect(completion.head?.status == .ok && completion.outcome == nil, "the head is not the end")
        completion.succeed(end())
        #expect(try await completion.end().body == [1, 2, 3])
    }

    @Test func aFailureBeforeTheHeadReachesTheTaskWaitingForIt() async {
        let completion = ExchangeCompletion()
        let received = await waitingForHead(completion)
        completion.fail(.refused)
        do {
            try await received.value
            Issue.record("the head waiter was not failed")
        } catch {
            guard case .refused = error as? ExchangeFailure else {
                Issue.record("\(error)")
                return
            }
        }
    }

    /// A reset right after the head (in the same read, before the waiting task has run) fails the body, not the
    /// response the server gave: the head stays readable, and the end is the failure.
    @Test func aFailureAfterTheHeadKeepsTheHead() async throws {
        let completion = ExchangeCompletion()
        let received = await waitingForHead(completion)
        completion.received(head)
        completion.fail(.streamReset("CANCEL"))
        try await received.value
        #expect(try completion.receivedHead().status == .ok)
        #expect(completion.head?.status == .ok)
        try await withUnsafeThrowingContinuation { completion.awaitHead($0) }
        await #expect(throws: ExchangeFailure.self) { try await completion.end() }
    }

    @Test func everyEndWaiterGetsTheEndOnce() async throws {
        let completion = ExchangeCompletion()
        let calls = NIOLockedValueBox<[Int]>([])
        completion.whenEnded { outcome in calls.withLockedValue { $0.append((try? outcome.get().body.count) ?? -1) } }
        completion.whenEnded { outcome in calls.withLockedValue { $0.append((try? outcome.get().body.count) ?? -1) } }
        completion.received(head)
        #expect(calls.withLockedValue { $0 }.isEmpty, "a head is not an end")
        completion.succeed(end([9]))
        completion.fail(.closed)
        completion.succeed(end())
        #expect(calls.withLockedValue { $0 } == [1, 1], "each waiter once, with the first end")
        guard case .success(let ended)? = completion.outcome else {
                Issue.record("not ended")
                return
            }
        #expect(ended.body == [9])
        let late = NIOLockedValueBox<Int?>(nil)
        completion.whenEnded { outcome in late.withLockedValue { $0 = try? outcome.get().body.count } }
        #expect(late.withLockedValue { $0 } == 1, "a waiter after the end gets it at once")
    }

    @Test func aWaiterAfterAFailureGetsTheFailureForHeadAndEnd() async {
        let completion = ExchangeCompletion()
        completion.fail(.tooLarge(limit: 10))
        completion.received(head)
        #expect(completion.head == nil, "no head after the end")
        do {
            try await withUnsafeThrowingContinuation { completion.awaitHead($0) }
            Issue.record("a head after a failure")
        } catch {
            guard case .tooLarge(10) = error as? ExchangeFailure else {
                Issue.record("\(error)")
                return
            }
        }
        await #expect(throws: ExchangeFailure.self) { try await completion.end() }
    }

    /// A cancelled request fails its exchange and closes the connection only when the failure ended it: an exchange
    /// already over may have handed its connection on to another request.
    @Test func failSaysWhetherItEndedTheExchange() {
        let open = ExchangeCompletion()
        #expect(open.fail(.cancelled))
        #expect(!open.fail(.cancelled))
        let headed = ExchangeCompletion()
        headed.received(head)
        #expect(headed.fail(.cancelled))
        let over = ExchangeCompletion()
        over.succeed(end())
        #expect(!over.fail(.cancelled))
        #expect(over.outcome.map { (try? $0.get()) != nil } == true, "the end stays")
    }

    @Test func anEndedCompletionHoldsItsEnd() async throws {
        let completion = ExchangeCompletion(ended: end([7]))
        #expect(completion.head?.status == .ok)
        #expect(try await completion.end().body == [7])
    }

    /// Completions on an event loop race with tasks registering from the pool: each task is resumed once, whichever
    /// comes first. A lost resumption hangs the test; a double one traps.
    @Test func completingOnALoopRacesWithWaitingTasks() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        let rounds = 2_000
        try await withThrowingTaskGroup(of: Int.self) { tasks in
            for index in 0..<rounds {
                let completion = ExchangeCompletion()
                let end = end([UInt8(truncatingIfNeeded: index)])
                let head = head
                loop.execute {
                    completion.received(head)
                    completion.succeed(end)
                }
                tasks.addTask {
                    try await withUnsafeThrowingContinuation { completion.awaitHead($0) }
                    #expect(try completion.receivedHead().status == .ok)
                    return Int(try await completion.end().body[0])
                }
            }
            var seen = 0
            for try await value in tasks {
                #expect(value < 256)
                seen += 1
            }
            #expect(seen == rounds)
        }
        try await group.shutdownGracefully()
    }
}
