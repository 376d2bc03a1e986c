import Hummingbird
import HummingbirdCore
import HummingbirdHTTP2
import Logging
import NIOCore
import NIOSSL
import NIOTLS

/// HTTPS with HTTP/2 and HTTP/1.1, whose connections must finish their TLS handshake within a
/// deadline. Hummingbird's idle timeouts start once a protocol is negotiated; before that a
/// client that connects and sends nothing, or a ClientHello a byte at a time, would hold its
/// connection, and enough of them every connection the gateway allows.
struct HandshakeDeadlineChannel: ServerChildChannel {
    typealias Value = HTTP2UpgradeChannel.Value

    let base: HTTP2UpgradeChannel
    let deadline: TimeAmount

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let future = base.setup(channel: channel, logger: logger)
        do {
            // Behind the TLS handler, which tells the pipeline when its handshake is done.
            let tls = try channel.pipeline.syncOperations.handler(type: NIOSSLServerHandler.self)
            try channel.pipeline.syncOperations.addHandler(HandshakeDeadlineHandler(deadline: deadline), position: .after(tls))
        } catch {
            channel.close(promise: nil)
            return channel.eventLoop.makeFailedFuture(error)
        }
        return future
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}

/// Closes its connection unless the TLS handshake completes within `deadline`; then leaves the
/// pipeline.
private final class HandshakeDeadlineHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    private let deadline: TimeAmount
    private var timer: Scheduled<Void>?

    init(deadline: TimeAmount) {
        self.deadline = deadline
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let channel = context.channel
        timer = context.eventLoop.scheduleTask(in: deadline) { channel.close(promise: nil) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .handshakeCompleted? = event as? TLSUserEvent {
            timer?.cancel()
            context.fireUserInboundEventTriggered(event)
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }
}
