import NIOCore
import NIOHTTPTypes
import NIOTLS

/// Closes its channel unless what it waits for comes within `deadline`, then leaves the pipeline:
/// a peer that sends nothing, or a byte at a time, holds its connection (or HTTP/2 stream) no
/// longer than that.
final class DeadlineHandler: ChannelInboundHandler, RemovableChannelHandler {
    /// Read only while waiting for ``Awaited/requestEnd``; a handler waiting for the TLS
    /// handshake passes the connection's bytes on untouched.
    typealias InboundIn = HTTPRequestPart

    enum Awaited {
        /// The TLS handshake's completion (the TLS handler's user event).
        case tlsHandshake
        /// The end of the channel's request: it has been read whole.
        case requestEnd
    }

    private let awaited: Awaited
    private let deadline: TimeAmount
    private var timer: Scheduled<Void>?

    init(_ awaited: Awaited, within deadline: TimeAmount) {
        self.awaited = awaited
        self.deadline = deadline
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let channel = context.channel
        timer = context.eventLoop.scheduleTask(in: deadline) { channel.close(promise: nil) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let met = if awaited == .requestEnd, case .end = unwrapInboundIn(data) { true } else { false }
        context.fireChannelRead(data)
        if met { context.pipeline.syncOperations.removeHandler(context: context, promise: nil) }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        let met = if awaited == .tlsHandshake, case .handshakeCompleted? = event as? TLSUserEvent { true } else { false }
        context.fireUserInboundEventTriggered(event)
        if met { context.pipeline.syncOperations.removeHandler(context: context, promise: nil) }
    }
}
