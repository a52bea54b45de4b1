import NIOCore
import Testing

@testable import TransportClient

/// Opening a connection, step by step, without a socket.
@Suite struct ConnectionSetupStateTests {
    func handshaking() -> ConnectionSetupState {
        var state = ConnectionSetupState()
        state.opened()
        return state
    }

    @Test func aHandshakeInTimeGoesOnToALPNsChoice() {
        var state = handshaking()
        #expect(state.step == .handshaking)
        let r1 = state.handshakeEnded(succeeded: true, refused: false)
        #expect(r1 == .negotiate)
        let r2 = state.negotiated(http2: false, isTLS: true, allowedByEvaluation: true, requiresHTTP2: false)
        #expect(r2 == .http1)
        #expect(state.step == .open)
    }

    @Test func theVerifiersRefusalOutranksTheClosedChannelAndTheTimer() {
        var state = handshaking()
        let r3 = state.limitPassed(.handshake)
        #expect(r3)
        let r4 = state.handshakeEnded(succeeded: false, refused: true)
        #expect(r4 == .refused)
        #expect(state.step == .failed)
    }

    @Test func aLimitThatRanOutAsTheHandshakeFinishedIsATimeout() {
        var state = handshaking()
        let r5 = state.limitPassed(.request)
        #expect(r5)
        let r6 = state.handshakeEnded(succeeded: true, refused: false)
        #expect(r6 == .timedOut(.request))
    }

    @Test func aLateTimerChangesNothing() {
        var state = handshaking()
        let r7 = state.handshakeEnded(succeeded: true, refused: false)
        #expect(r7 == .negotiate)
        let r8 = state.limitPassed(.handshake)
        #expect(!r8)
        #expect(state.expired == nil)
        var twice = handshaking()
        let r9 = twice.limitPassed(.handshake)
        #expect(r9)
        let r10 = twice.limitPassed(.request)
        #expect(!r10)
        #expect(twice.expired == .handshake)
    }

    /// A task cancelled during the handshake stops it; a cancellation that comes as the handshake finishes wins, as a
    /// limit does, since the glue has closed the channel. A limit that ran out first stays the reason.
    @Test func aCancelledTaskEndsTheHandshakeUnlessALimitOrTheEndCameFirst() {
        var state = handshaking()
        let stopped = state.taskCancelled()
        #expect(stopped)
        let again = state.taskCancelled()
        #expect(!again)
        let limit = state.limitPassed(.handshake)
        #expect(!limit, "already stopped")
        let ended = state.handshakeEnded(succeeded: true, refused: false)
        #expect(ended == .cancelled)
        #expect(state.step == .failed)

        var timed = handshaking()
        _ = timed.limitPassed(.request)
        let late = timed.taskCancelled()
        #expect(!late)
        #expect(timed.handshakeEnded(succeeded: false, refused: false) == .timedOut(.request))

        var done = handshaking()
        #expect(done.handshakeEnded(succeeded: true, refused: false) == .negotiate)
        let afterEnd = done.taskCancelled()
        #expect(!afterEnd)

        var refused = handshaking()
        _ = refused.taskCancelled()
        #expect(refused.handshakeEnded(succeeded: false, refused: true) == .refused)
    }

    @Test func aFailureWithoutRefusalOrTimeoutIsTheTLSLibrarysToClassify() {
        var state = handshaking()
        let r11 = state.handshakeEnded(succeeded: false, refused: false)
        #expect(r11 == .classify)
    }

    @Test func aTLSConnectionItsEvaluationDidNotAllowIsRefusedFirst() {
        for http2 in [false, true] {
            var state = handshaking()
            _ = state.handshakeEnded(succeeded: true, refused: false)
            let r12 = state.negotiated(http2: http2, isTLS: true, allowedByEvaluation: false, requiresHTTP2: true)
            #expect(r12 == .unevaluated)
            #expect(state.step == .failed)
        }
        var plain = handshaking()
        _ = plain.handshakeEnded(succeeded: true, refused: false)
        let r13 = plain.negotiated(http2: false, isTLS: false, allowedByEvaluation: false, requiresHTTP2: false)
        #expect(r13 == .http1)
    }

    @Test func requiredHTTP2ThatALPNRefusedFails() {
        var refused = handshaking()
        _ = refused.handshakeEnded(succeeded: true, refused: false)
        let r14 = refused.negotiated(http2: false, isTLS: true, allowedByEvaluation: true, requiresHTTP2: true)
        #expect(r14 == .http2Refused)
        var agreed = handshaking()
        _ = agreed.handshakeEnded(succeeded: true, refused: false)
        let r15 = agreed.negotiated(http2: true, isTLS: true, allowedByEvaluation: true, requiresHTTP2: true)
        #expect(r15 == .http2)
    }

    @Test func eventsOutOfOrderFailClosed() {
        var early = ConnectionSetupState()
        let r16 = early.handshakeEnded(succeeded: true, refused: false)
        #expect(r16 == .classify)
        #expect(early.step == .failed)
        var skipped = ConnectionSetupState()
        let r17 = skipped.negotiated(http2: false, isTLS: false, allowedByEvaluation: true, requiresHTTP2: false)
        #expect(r17 == .unevaluated)
        var reopened = handshaking()
        reopened.opened()
        #expect(reopened.step == .failed)
        let r18 = reopened.limitPassed(.handshake)
        #expect(!r18)
    }

    @Test func theEarlierLimitBoundsTheHandshakeAndNamesTheError() {
        let now = NIODeadline.now()
        #expect(ConnectionSetupState.handshakeLimit(own: now, request: now + .seconds(1)) == (now, .handshake))
        #expect(ConnectionSetupState.handshakeLimit(own: now + .seconds(1), request: now) == (now, .request))
        #expect(ConnectionSetupState.handshakeLimit(own: now, request: now).phase == .handshake)
    }
}
