import Hummingbird
import HummingbirdCore
import HummingbirdHTTP2
import Logging
import NIOCore
import NIOSSL

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
            try channel.pipeline.syncOperations.addHandler(DeadlineHandler(.tlsHandshake, within: deadline), position: .after(tls))
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
