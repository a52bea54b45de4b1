import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOHTTP2

/// One request's stream, as its ``Connection`` holds it: the token the connection's handler knows it by, and
/// whether it still counts among the session's open streams (a retiring session closes after the last).
final class HTTP2StreamHandle: Sendable {
    let token: Int
    private let counted = NIOLockedValueBox(true)
    private let streams: NIOLockedValueBox<StreamCount>
    private let channel: any Channel

    init(token: Int, streams: NIOLockedValueBox<StreamCount>, channel: any Channel) {
        self.token = token
        self.streams = streams
        self.channel = channel
    }

    /// Whether the stream has not ended yet.
    var isOpen: Bool { counted.withLockedValue { $0 } }

    /// Counts the stream out, once, whoever ends it first: the handler when the response ends, or the connection's
    /// owner closing it.
    func end() {
        let first = counted.withLockedValue { counted in
            defer { counted = false }
            return counted
        }
        if first && streams.withLockedValue({ $0.end() }) { channel.close(promise: nil) }
    }
}

/// Drives a client's HTTP/2 connection at the frame level, behind NIO's NIOHTTP2Handler run without a stream
/// multiplexer: no child channel or pipeline per stream. It is that handler's frame delegate too, to learn when NIO
/// ends the connection with GOAWAY. NIO frames, compresses headers, checks the protocol and
/// counts the flow-control windows; ``HTTP2ConnectionState`` maps frames to requests; this handler writes the
/// requests, completes their exchanges on the event loop, and gives the windows back (NIO does not without a
/// multiplexer, docs/HTTP2.md).
final class HTTP2ClientHandler: ChannelInboundHandler, NIOHTTP2FrameDelegate {
    typealias InboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    /// Where one request's response goes once its stream is open; the request's head and body are gone by then.
    private struct Receiver {
        let streamID: HTTP2StreamID
        let handle: HTTP2StreamHandle
        let completion: ExchangeCompletion
        let limit: Int
        var head: HTTPResponseHead?
        var body: [UInt8] = []
    }

    private var state = HTTP2ConnectionState()
    private var receivers: [Int: Receiver] = [:]
    /// Requests queued behind the server's SETTINGS_MAX_CONCURRENT_STREAMS.
    private var waiting: [Int: (request: ExchangeRequest, handle: HTTP2StreamHandle)] = [:]
    /// The requests' time limits, sent or queued, behind one timer for the connection.
    private let deadlines = DeadlineTimer<Int>()
    private var context: ChannelHandlerContext?
    /// Whether NIO sent GOAWAY (``wroteFrame(_:)``): it does for a connection error only.
    private var sentGoAway = false
    /// Why the connection ended, for requests that arrive after.
    let death: NIOLockedValueBox<ExchangeFailure?>
    let goingAway: NIOLockedValueBox<HTTP2StreamID?>
    let streams: NIOLockedValueBox<StreamCount>

    init(death: NIOLockedValueBox<ExchangeFailure?>, goingAway: NIOLockedValueBox<HTTP2StreamID?>, streams: NIOLockedValueBox<StreamCount>) {
        self.death = death
        self.goingAway = goingAway
        self.streams = streams
    }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        deadlines.stop()
    }

    // MARK: Requests

    /// Sends `request` on a new stream, or queues it while the server's bound is reached; its deadline resets the
    /// stream, or takes it out of the queue, when it passes first. On the event loop.
    func start(_ request: ExchangeRequest, handle: HTTP2StreamHandle) {
        let outcome: HTTP2ConnectionState.Start = context == nil ? .closed : state.start(handle.token)
        switch outcome {
        case .send(let id):
            schedule(handle.token, request.deadline)
            send(request, handle: handle, on: id)
        case .queued:
            schedule(handle.token, request.deadline)
            waiting[handle.token] = (request, handle)
        case .refused: Self.fail(request, handle: handle, .refused)
        case .closed: Self.fail(request, handle: handle, .unsent(after: death.withLockedValue { $0 }))
        }
    }

    /// Ends the request before its response has (its time limit, or its owner letting go): resets its stream, or
    /// takes it out of the queue. On the event loop.
    func cancel(_ token: Int, failure: ExchangeFailure) {
        if case .reset(let id) = state.cancel(token, on: receivers[token]?.streamID) { reset(id, .cancel) }
        finish(token, failure)
        sendQueued()
    }

    private func send(_ request: ExchangeRequest, handle: HTTP2StreamHandle, on id: HTTP2StreamID) {
        guard let context else { return Self.fail(request, handle: handle, .unsent(after: death.withLockedValue { $0 })) }
        let token = handle.token
        receivers[token] = Receiver(streamID: id, handle: handle, completion: request.completion,
                                    limit: request.limit)
        if let responseBody = request.responseBody {
            let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
            let eventLoop = context.eventLoop
            responseBody.onResume { eventLoop.execute { handler.value.readerResumed(token) } }
        }
        let body = request.body.flatMap { $0.isEmpty ? nil : $0 }
        let headers = HTTP2Frame.FramePayload.Headers(headers: HTTP2Messages.headerBlock(request.head), endStream: body == nil)
        let written = context.eventLoop.makePromise(of: Void.self)
        written.futureResult.assumeIsolated().whenFailure { error in self.notSent(token, on: id, error) }
        context.write(wrapOutboundOut(HTTP2Frame(streamID: id, payload: .headers(headers))), promise: written)
        if let body {
            let data = HTTP2Frame.FramePayload.Data(data: .byteBuffer(context.channel.allocator.buffer(bytes: body)), endStream: true)
            context.write(wrapOutboundOut(HTTP2Frame(streamID: id, payload: .data(data))), promise: nil)
        }
        // Flushes of one turn of the loop leave as one write (FlushCoalescingHandler, below NIO's handler).
        context.flush()
    }

    /// The request's HEADERS did not go out: a closed connection, a stream NIO dropped, or a head NIO refused.
    private func notSent(_ token: Int, on id: HTTP2StreamID, _ error: any Error) {
        guard receivers[token]?.streamID == id else { return }
        if let closed = error as? NIOHTTP2Errors.StreamClosed, let token = state.closed(id) {
            finish(token, StreamRefusal.failure(closed.errorCode, on: id, lastStreamID: state.lastStreamID))
        } else {
            _ = state.cancel(token, on: id)
            let io = error is ChannelError || error is IOError
            finish(token, io ? .unsent(after: death.withLockedValue { $0 }) : .requestRejected("\(error)"))
        }
        sendQueued()
    }

    private func sendQueued() {
        while let (token, id) = state.nextToSend() {
            guard let (request, handle) = waiting.removeValue(forKey: token) else {
                // Not on the wire yet, so nothing to reset.
                _ = state.cancel(token, on: id)
                continue
            }
            send(request, handle: handle, on: id)
        }
    }

    // MARK: Frames

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.payload {
        case .headers(let headers): receivedHeaders(headers, on: frame.streamID)
        case .data(let data): receivedData(data, on: frame.streamID)
        case .rstStream(let code): closed(frame.streamID, code: code, byServer: true)
        case .goAway(let last, _, _): receivedGoAway(last, context: context)
        case .settings(.settings(let settings)):
            for setting in settings where setting.parameter == .maxConcurrentStreams { state.receivedSettings(maxConcurrentStreams: setting.value) }
            sendQueued()
        default: break
        }
    }

    private func receivedHeaders(_ headers: HTTP2Frame.FramePayload.Headers, on id: HTTP2StreamID) {
        let head = HTTP2Messages.responseHead(headers.headers)
        let informational = head.map { HTTP2Messages.isInformational(Int($0.status.code)) } ?? false
        guard let (token, event) = state.receivedHeaders(on: id, informational: informational, endStream: headers.endStream) else { return }
        switch event {
        case .head(let ended):
            guard let head else {
                _ = state.cancel(token, on: id)
                return protocolError(token, on: id, "the response's HEADERS have no valid :status")
            }
            receivers[token]?.head = head
            receivers[token]?.completion.received(head)
            if ended { complete(token) }
        case .trailers: complete(token)
        case .protocolError: protocolError(token, on: id, "the response's HEADERS came where RFC 9113 §8.1 allows none")
        case .interim, .data, .ignored: return
        }
    }

    private func receivedData(_ data: HTTP2Frame.FramePayload.Data, on id: HTTP2StreamID) {
        guard let token = state.streams[id]?.token, let receiver = receivers[token] else { return }
        let bytes = data.data.readableBytes
        if receiver.head != nil, bytes > 0 {
            guard deliver(data.data, to: token, receiver) else { return }
        }
        let length = bytes + (data.paddingBytes.map { $0 + 1 } ?? 0)
        let paused = receiver.completion.body?.isPaused ?? false
        guard let (_, event) = state.receivedData(on: id, length: length, endStream: data.endStream, readerPaused: paused) else { return }
        switch event {
        case .data(let increment, let ended):
            if ended { return complete(token) }
            if let increment { windowUpdate(id, increment) }
        case .protocolError: protocolError(token, on: id, "the response sent DATA before its head")
        case .head, .interim, .trailers, .ignored: return
        }
    }

    /// Hands body bytes to the reader, or to the buffer within its limit; false when the limit ended the exchange.
    private func deliver(_ data: IOData, to token: Int, _ receiver: Receiver) -> Bool {
        guard case .byteBuffer(let buffer) = data else { return true }
        if let responseBody = receiver.completion.body {
            responseBody.append(buffer.readableBytesView)
            return true
        }
        guard receiver.body.count + buffer.readableBytes <= receiver.limit else {
            cancel(token, failure: .tooLarge(limit: receiver.limit))
            return false
        }
        receivers[token]?.body.append(contentsOf: buffer.readableBytesView)
        return true
    }

    private func readerResumed(_ token: Int) {
        guard let id = receivers[token]?.streamID, let increment = state.readerResumed(on: id) else { return }
        windowUpdate(id, increment)
    }

    private func receivedGoAway(_ last: HTTP2StreamID, context: ChannelHandlerContext) {
        goingAway.withLockedValue { $0 = min($0 ?? last, last) }
        let idle = streams.withLockedValue { $0.retire() }
        // Never processed: safe to send again on another connection (RFC 9113 §6.8).
        for token in state.receivedGoAway(lastStreamID: last) { finish(token, .refused) }
        if idle { context.close(promise: nil) }
    }

    /// A stream closed before its response ended: reset by the server (`byServer`), or by NIO. The server's
    /// RST_STREAM and GOAWAY reach this handler before NIO's closing of their streams, so a stream NIO closes with a
    /// code while it is still here is one NIO reset for what the server sent on it.
    private func closed(_ id: HTTP2StreamID, code: HTTP2ErrorCode?, byServer: Bool) {
        guard let token = state.closed(id) else { return }
        switch code {
        case nil: finish(token, .closed)
        case let code? where byServer: finish(token, StreamRefusal.failure(code, on: id, lastStreamID: state.lastStreamID))
        case let code?: finish(token, .malformedResponse("the response broke HTTP/2 on its stream, which was reset with \(StreamRefusal.name(of: code))"))
        }
        sendQueued()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? NIOHTTP2WindowUpdatedEvent {
            if event.streamID == .rootStream, let size = event.inboundWindowSize,
               let increment = HTTP2ConnectionState.connectionIncrement(windowSize: size) {
                windowUpdate(.rootStream, increment)
            }
        } else if let event = event as? StreamClosedEvent {
            closed(event.streamID, code: event.reason, byServer: false)
        }
        context.fireUserInboundEventTriggered(event)
    }

    // MARK: Ends

    private func complete(_ token: Int) {
        guard let receiver = receivers.removeValue(forKey: token), let head = receiver.head else { return }
        deadlines.remove(token)
        // Counted out first, so that the owner, woken by the completion, finds the stream ended and costs no hop to close it.
        receiver.handle.end()
        // A stream carries one exchange; the connection goes on whatever the response said.
        receiver.completion.succeed(ExchangeEnd(head: head, body: receiver.body, reusable: true))
        sendQueued()
    }

    private func finish(_ token: Int, _ failure: ExchangeFailure) {
        deadlines.remove(token)
        if let receiver = receivers.removeValue(forKey: token) {
            receiver.handle.end()
            receiver.completion.fail(failure)
        } else if let (request, handle) = waiting.removeValue(forKey: token) {
            Self.fail(request, handle: handle, failure)
        }
    }

    private static func fail(_ request: ExchangeRequest, handle: HTTP2StreamHandle, _ failure: ExchangeFailure) {
        handle.end()
        request.completion.fail(failure)
    }

    private func protocolError(_ token: Int, on id: HTTP2StreamID, _ what: String) {
        reset(id, .protocolError)
        finish(token, .malformedResponse(what))
        sendQueued()
    }

    private func reset(_ id: HTTP2StreamID, _ code: HTTP2ErrorCode) {
        guard let context else { return }
        context.writeAndFlush(wrapOutboundOut(HTTP2Frame(streamID: id, payload: .rstStream(code))), promise: nil)
    }

    private func windowUpdate(_ id: HTTP2StreamID, _ increment: Int) {
        guard let context else { return }
        context.writeAndFlush(wrapOutboundOut(HTTP2Frame(streamID: id, payload: .windowUpdate(windowSizeIncrement: increment))), promise: nil)
    }

    // MARK: Time limits

    private func schedule(_ token: Int, _ deadline: NIODeadline) {
        guard let context else { return }
        deadlines.add(token, deadline: deadline, on: context.eventLoop) { [self] expired in timeUp(expired) }
    }

    /// Ends the requests whose time is up, as timeouts.
    private func timeUp(_ expired: [Int]) {
        for token in expired { cancel(token, failure: .timedOut) }
    }

    // MARK: The connection

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A stream's error: a write's has its promise (notSent), and NIO closes a stream it resets (closed(_:code:byServer:)).
        guard sentGoAway else { return }
        // NIO sends GOAWAY only for a connection error (this client never does): the connection is over. Closed on
        // the next turn of the loop, once NIO has flushed its GOAWAY.
        let text = String(describing: error)
        let type = String(reflecting: Swift.type(of: error))
        death.withLockedValue { $0 = $0 ?? .error(text, isTLS: type.contains("NIOSSL") || type.contains("BoringSSL")) }
        context.eventLoop.assumeIsolated().execute { context.close(promise: nil) }
    }

    func wroteFrame(_ frame: HTTP2Frame) {
        if case .goAway = frame.payload { sentGoAway = true }
    }

    func channelInactive(context: ChannelHandlerContext) {
        let failure = death.withLockedValue { $0 } ?? .closed
        let (sent, unsent) = state.close()
        for token in sent { finish(token, failure) }
        for token in unsent { finish(token, .unsent(after: failure)) }
        deadlines.stop()
        context.fireChannelInactive()
    }
}
