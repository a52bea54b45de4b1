import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOTLS

/// Why an exchange ended early, before mapping to a ``TransportError``.
enum ExchangeFailure: Error, Sendable {
    case closed
    case tooLarge(limit: Int)
    case error(String, isTLS: Bool)
    /// NIO's HTTP/1.1 decoder refused what the server sent.
    case malformedResponse(String)
    /// NIO refused to write the request (its outbound header validation): nothing was sent.
    case requestRejected(String)
    /// The server refused an HTTP/2 stream unprocessed (RFC 9113 §8.7): any request may be sent again.
    case refused
    /// The connection had closed before the request reached it: not a byte of it went out, so any request may be sent
    /// again on a new connection.
    case notSent
    /// The server reset the HTTP/2 stream with this error code (RFC 9113 §7), its name as the RFC spells it.
    case streamReset(String)
    /// The request's time limit passed before the response was complete (``DeadlineSchedule``).
    case timedOut
    /// The request's task was cancelled before its response was in, or before the client had read a response it
    /// reads itself (a redirect's, a challenge's).
    case cancelled
    /// Two tasks read one streamed body at once (``BodyBuffer``).
    case concurrentRead

    /// Why a request that never reached the connection failed: the reason the connection died, when there was one
    /// beyond its closing; otherwise ``notSent``.
    static func unsent(after death: ExchangeFailure?) -> ExchangeFailure {
        guard let death else { return .notSent }
        if case .closed = death { return .notSent }
        return death
    }

    /// ``TransportError/underlying`` of a refused stream, by which the client knows a retry is safe.
    static let refusedMarker = "HTTP/2 REFUSED_STREAM"
    /// ``TransportError/underlying`` of a request that never went out, by which the client knows a retry is safe.
    static let notSentMarker = "request not sent: connection already closed"

    /// Whether a request that failed with `error` may be sent again on a new connection. Only what provably did not
    /// run: a refused HTTP/2 stream, or a request that never left, from a pooled connection the server had closed; or,
    /// from a pooled connection, an idempotent request (RFC 9110 §9.2.2). A close after a request went out may
    /// follow its processing, and a POST must not run twice.
    static func mayRetry(_ error: TransportError, reused: Bool, method: HTTPMethod) -> Bool {
        guard error.kind == .connectionClosed else { return false }
        if error.underlying == refusedMarker { return true }
        let idempotent = [.GET, .HEAD, .OPTIONS, .TRACE, .PUT, .DELETE].contains(method)
        return reused && (idempotent || error.underlying == notSentMarker)
    }
}

/// How a response ended: its head, its body (empty when it was streamed), and whether the connection may carry
/// another request.
struct ExchangeEnd: Sendable {
    var head: HTTPResponseHead
    var body: [UInt8]
    var reusable: Bool
}

/// One request and where its response goes. Written to the channel as an outbound message. A class: it passes
/// through NIO's pipeline, the handlers and the sender's closures, and as a value each pass copied (and retained)
/// its head, completion and continuation.
final class ExchangeRequest: Sendable {
    let head: HTTPRequestHead
    let body: [UInt8]?
    /// The response head, then its end. Reuse is decided with the end, on the event loop, so that the sender need
    /// not come back to the loop to ask.
    let completion: ExchangeCompletion
    let limit: Int
    /// For a streamed response: its body, whose unread bytes hold reading back; the completion ends it.
    var responseBody: BodyBuffer? { completion.body }
    /// When the request's time limit ends it, as ``ExchangeFailure/timedOut``: the exchange handlers keep their
    /// exchanges' deadlines (``DeadlineSchedule``). `.distantFuture` is none.
    let deadline: NIODeadline

    init(head: HTTPRequestHead, body: [UInt8]?, limit: Int, responseBody: BodyBuffer? = nil,
         deadline: NIODeadline = .distantFuture) {
        self.head = head
        self.body = body
        completion = ExchangeCompletion(body: responseBody)
        self.limit = limit
        self.deadline = deadline
    }
}

/// Drives one HTTP/1.1 exchange at a time over NIO's codec: writes the request, collects or streams the
/// response, bounds the body, and fails the exchange on errors and closure.
final class ExchangeHandler: ChannelDuplexHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundIn = ExchangeRequest
    typealias OutboundOut = HTTPClientRequestPart

    private var current: ExchangeRequest?
    private var head: HTTPResponseHead?
    private var body: [UInt8] = []
    private var received = 0
    /// Whether the connection may carry another request.
    private var reusable = false
    private var context: ChannelHandlerContext?
    /// Set while a request is handed to the handlers before us, which report a request they refuse by an error fired
    /// back at once.
    private var writing = false
    /// A read the channel asked for while paused, passed on when reading resumes.
    private var pendingRead = false
    /// The exchanges so far: the current one's token in ``deadlines``.
    private var exchanges = 0
    /// The current exchange's time limit, behind one timer that keep-alive requests share.
    private let deadlines = DeadlineTimer<Int>()
    /// Why the connection ended while no exchange was running (say, a TLS 1.3 alert refusing the client
    /// certificate just after the handshake), so that the next request can report it.
    let death: NIOLockedValueBox<ExchangeFailure?>

    init(death: NIOLockedValueBox<ExchangeFailure?>) { self.death = death }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        deadlines.stop()
    }

    /// Fails the exchange in progress at once and closes the connection. A TLS close waits for the peer's
    /// close_notify, so waiting for channelInactive would let a deadline overrun by the TLS shutdown timeout.
    func abort(_ failure: ExchangeFailure) {
        guard let context else { return }
        fail(failure, context: context)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let request = unwrapOutboundIn(data)
        guard current == nil else {
            request.completion.fail(ExchangeFailure.error("the connection is busy", isTLS: false))
            promise?.fail(ExchangeFailure.closed)
            return
        }
        // The connection died before the request reached us (a TLS 1.3 alert refusing the client certificate, say):
        // no event will ever end this exchange, so end it now with the reason seen.
        guard context.channel.isActive else {
            let failure = ExchangeFailure.unsent(after: death.withLockedValue { $0 })
            request.completion.fail(failure)
            promise?.fail(ExchangeFailure.closed)
            return
        }
        current = request
        head = nil
        body = []
        received = 0
        reusable = false
        exchanges += 1
        deadlines.add(exchanges, deadline: request.deadline, on: context.eventLoop) { [self] expired in timeUp(expired) }
        if let responseBody = request.responseBody {
            let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
            let eventLoop = context.eventLoop
            responseBody.onResume { eventLoop.execute { handler.value.resumeReads() } }
        }
        writing = true
        defer { writing = false }
        context.write(wrapOutboundOut(.head(request.head)), promise: nil)
        // A head NIO refused has already ended the exchange (errorCaught): send nothing more.
        guard current != nil else {
            promise?.fail(ExchangeFailure.closed)
            return
        }
        if let bytes = request.body, !bytes.isEmpty {
            context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: bytes)))), promise: nil)
        }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: promise)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard let request = current else { return }
        switch unwrapInboundIn(data) {
        case .head(let head):
            // An interim response (103 Early Hints, 100 Continue) is not the answer. NIO's HTTP/1 decoder drops them,
            // but its HTTP/2 codec passes them on; 101 is final wherever it comes.
            if (100..<200).contains(head.status.code) && head.status != .switchingProtocols { return }
            self.head = head
            // A request that said `connection: close` ends the connection too, whatever the server answered.
            reusable = head.isKeepAlive && request.head.isKeepAlive
            request.completion.received(head)
        case .body(let buffer):
            received += buffer.readableBytes
            if let responseBody = request.responseBody {
                responseBody.append(buffer.readableBytesView)
            } else if received > request.limit {
                fail(ExchangeFailure.tooLarge(limit: request.limit), context: context)
            } else {
                body += buffer.readableBytesView
            }
        case .end:
            guard let head else { return fail(.malformedResponse("the response ended before its head"), context: context) }
            current = nil
            deadlines.remove(exchanges)
            request.completion.succeed(ExchangeEnd(head: head, body: body, reusable: reusable))
            body = []
            // The body is all here: the connection reads on for whatever comes next (its close, say).
            resumeReads()
        }
    }

    /// Reading is held back while a slow reader of the streamed body catches up (``BodyBuffer``).
    private var readsPaused: Bool { current?.responseBody?.isPaused ?? false }

    func read(context: ChannelHandlerContext) {
        guard !readsPaused else {
            pendingRead = true
            return
        }
        context.read()
    }

    /// Lets reading go on after a pause, from the reader's side or when the exchange is over.
    func resumeReads() {
        guard pendingRead, !readsPaused, let context else { return }
        pendingRead = false
        context.read()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let failure = error as? ExchangeFailure { return fail(failure, context: context) }
        if error is HTTPParserError || error is NIOHTTPDecoderError {
            // While we write, only the outbound validator can raise these: the request's fault, not the server's.
            return fail(writing ? .requestRejected("\(error)") : .malformedResponse("\(error)"), context: context)
        }
        let isTLS = String(reflecting: type(of: error)).contains("NIOSSL") || String(reflecting: type(of: error)).contains("BoringSSL")
        fail(ExchangeFailure.error(String(describing: error), isTLS: isTLS), context: context)
    }

    func channelInactive(context: ChannelHandlerContext) {
        fail(ExchangeFailure.closed, context: context)
        deadlines.stop()
        context.fireChannelInactive()
    }

    /// Ends the exchange whose time is up, as a timeout, with the connection: its response is still coming, and the
    /// next exchange must not read it.
    private func timeUp(_ expired: [Int]) {
        guard expired.contains(exchanges), current != nil, let context else { return }
        fail(.timedOut, context: context)
    }

    private func fail(_ failure: ExchangeFailure, context: ChannelHandlerContext) {
        reusable = false
        guard let request = current else {
            death.withLockedValue { if $0 == nil { $0 = failure } }
            context.close(promise: nil)
            return
        }
        current = nil
        deadlines.remove(exchanges)
        resumeReads()
        request.completion.fail(failure)
        context.close(promise: nil)
    }
}

/// Completes when the TLS handshake has finished, or fails with the first error or closure before then.
final class HandshakeWaiter: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let promise: EventLoopPromise<Void>
    private let onCompleted: ((ChannelPipeline.SynchronousOperations, String?) throws -> Void)?
    private var done = false

    init(promise: EventLoopPromise<Void>, onCompleted: ((ChannelPipeline.SynchronousOperations, String?) throws -> Void)? = nil) {
        self.promise = promise
        self.onCompleted = onCompleted
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? TLSUserEvent, case .handshakeCompleted(let negotiated) = event, !done {
            done = true
            do {
                try onCompleted?(context.pipeline.syncOperations, negotiated)
                promise.succeed(())
            } catch {
                promise.fail(ExchangeFailure.error("the connection could not be set up for \(negotiated ?? "HTTP/1.1"): \(error)", isTLS: false))
                context.close(promise: nil)
            }
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if !done {
            done = true
            promise.fail(ExchangeFailure.error(String(describing: error), isTLS: true))
        }
        context.fireErrorCaught(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if !done {
            done = true
            promise.fail(ExchangeFailure.closed)
        }
        context.fireChannelInactive()
    }

    /// Removed before the handshake finished. Added to a channel that had already closed (a proxy's tunnel that closed
    /// before the target's TLS went in), this handler never sees channelInactive: NIO tears such a pipeline down a
    /// turn of the loop later, and this is then the only call it gets. Without it the handshake's waiter waits forever.
    func handlerRemoved(context: ChannelHandlerContext) {
        if !done {
            done = true
            promise.fail(ExchangeFailure.closed)
        }
    }
}
