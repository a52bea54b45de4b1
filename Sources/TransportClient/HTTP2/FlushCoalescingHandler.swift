import NIOCore

/// Turns the flushes asked for during one turn of the event loop into one, made once the tasks already queued have run.
///
/// Every HTTP/2 request is written and flushed from an event-loop task of its own, and each flush became a TLS record
/// and a `write` system call. With 100 streams open that was about a third of the client's CPU time (`bench/h2.sh`
/// under `perf record`, 2026-11-27). Deferred this way, the requests queued together leave in one write.
final class FlushCoalescingHandler: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = NIOAny
    typealias OutboundOut = NIOAny

    private var flushScheduled = false

    func flush(context: ChannelHandlerContext) {
        guard !flushScheduled else { return }
        flushScheduled = true
        // A task queued now runs after those already queued, in this turn of the loop when there is time for it.
        context.eventLoop.assumeIsolated().execute {
            // Not when the handler was removed since, and flushed then.
            guard self.flushScheduled else { return }
            self.flushScheduled = false
            context.flush()
        }
    }

    /// A handler removed with a flush still scheduled flushes at once, so nothing written stays behind.
    func handlerRemoved(context: ChannelHandlerContext) {
        if flushScheduled {
            flushScheduled = false
            context.flush()
        }
    }
}
