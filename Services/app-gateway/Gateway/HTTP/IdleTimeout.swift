import Hummingbird
import HummingbirdCore
import Logging
import NIOCore

/// The idle timeout, in front of ``EventStreamChannelHandler``, as each kind of channel needs it;
/// it installs it and leaves the pipeline. Hummingbird's own sits behind the event streams' and
/// would take a connection writing one for an idle connection.
///
/// - An HTTP/1.1 connection gets Hummingbird's `HTTPConnectionStateHandler`: closed after the
///   idle timeout without a request in progress, or while a request is still being read.
/// - An HTTP/2 stream gets a ``DeadlineHandler``: its one request must be read whole within
///   the idle timeout (the connection's idle timeout counts only connections with no open
///   stream, so a request whose body never comes would hold its connection for good), and then
///   the stream has no timer and no handler of it: an open event stream costs nothing more.
///
/// Both kinds of channel come through the same configuration; an HTTP/2 stream's is the child of
/// its connection's, itself the child of the listening socket's, where an HTTP/1.1 connection's
/// is the listening socket's child.
final class IdleTimeout: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    private let idleTimeout: Duration
    private let logger: Logger

    init(_ idleTimeout: Duration, logger: Logger) {
        self.idleTimeout = idleTimeout
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let isHTTP2Stream = context.channel.parent?.parent != nil
        let timeout: any ChannelHandler =
            isHTTP2Stream
            ? DeadlineHandler(.requestEnd, within: TimeAmount(idleTimeout)) : HTTPConnectionStateHandler(idleTimeout: idleTimeout, logger: logger)
        // Fails only on a pipeline already closed: no connection left to time out.
        try? context.pipeline.syncOperations.addHandler(timeout, position: .after(self))
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }
}
