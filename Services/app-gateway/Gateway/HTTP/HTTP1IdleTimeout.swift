import Hummingbird
import HummingbirdCore
import Logging
import NIOCore

/// Puts the idle timeout (Hummingbird's `HTTPConnectionStateHandler`) in front of
/// ``EventStreamChannelHandler`` on each HTTP/1.1 connection, then leaves the pipeline.
/// Hummingbird's own handler sits behind the event streams' and would take a connection writing
/// one for an idle connection.
///
/// An HTTP/2 stream gets none: it carries a single request, and its connection has HTTP/2's
/// idle timeout. A timer for each of them would cost every open event stream over HTTP/2 a
/// handler and a scheduled task, for nothing. Both kinds of channel come through the same
/// configuration; an HTTP/2 stream's is the child of its connection's, itself the child of the
/// listening socket's, where an HTTP/1.1 connection's is the listening socket's child.
final class HTTP1IdleTimeout: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    private let idleTimeout: Duration
    private let logger: Logger

    init(_ idleTimeout: Duration, logger: Logger) {
        self.idleTimeout = idleTimeout
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let isHTTP2Stream = context.channel.parent?.parent != nil
        if !isHTTP2Stream {
            // Fails only on a pipeline already closed: no connection left to time out.
            try? context.pipeline.syncOperations.addHandler(
                HTTPConnectionStateHandler(idleTimeout: idleTimeout, logger: logger), position: .after(self))
        }
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }
}
