import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOHTTPTypes
import Synchronization

/// The stream a route opened for a request whose response lasts, handed to the connection that
/// writes it (``EventStreamChannelHandler``) through the request's context.
final class EventStreamAdoption: Sendable {
    private let adopted = Mutex<LiveStream?>(nil)

    /// The route's stream, written once its response has been.
    var stream: LiveStream? {
        get { adopted.withLock { $0 } }
        set { adopted.withLock { $0 = newValue } }
    }
}

/// Serves the requests whose response lasts — event streams — from the connection's pipeline,
/// with no task for as long as a stream is written; every other request passes through to
/// Hummingbird untouched.
///
/// Hummingbird answers each request from a task (an HTTP/1.1 connection's, an HTTP/2 stream's),
/// and a task keeps every slab of memory its deepest call took until it ends: under an event
/// stream written for hours that is the router, the middlewares and token verification, about
/// 6 kB a stream, beside what NIO holds. This handler sits between the HTTP codec and Hummingbird
/// and takes such a request before Hummingbird sees it (Hummingbird's task waits for a request
/// that never comes, at its shallowest). The router decides it in a short task of its own — the
/// same middlewares, authentication, rate limits and route as every other request — and the
/// stream the route opened (``EventStreamAdoption``) is written on the event loop whenever it
/// wakes (``LiveStream/attach(_:)``), as fast as the client reads (a stream keeps only the newest
/// change of each widget while the connection is not writable).
///
/// On an HTTP/1.1 connection, a stream asked for behind requests still being answered (pipelined)
/// starts once their responses are written, and the connection carries requests again once the
/// stream has ended — unless the request said `Connection: close`, as Hummingbird closes after
/// such a request's response too. A request sent behind a stream that has not ended closes the
/// connection, as no client pipelines behind a stream it reads; so does a request that does not
/// parse while a stream is written (Hummingbird's `400` would land inside the stream's body).
final class EventStreamChannelHandler<Responder: HTTPResponder>: ChannelDuplexHandler, RemovableChannelHandler
where Responder.Context == GatewayRequestContext {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private enum State {
        /// Requests pass through to Hummingbird.
        case passing
        /// A lasting request came while Hummingbird still owes responses to requests before it
        /// (HTTP/1.1 pipelining): it is decided once they are written.
        case waiting(Request)
        /// A lasting request is with the router.
        case deciding
        /// Its stream is being written.
        case streaming(LiveStream)
        /// The connection has closed.
        case gone
    }

    private static var retryInterval: ByteBuffer { ByteBuffer(string: "retry: 1000\n\n") }
    private static var heartbeat: ByteBuffer { ByteBuffer(string: ": heartbeat\n\n") }

    private let responder: Responder
    private let streams: LiveStreams
    private let logger: Logger
    private var state = State.passing
    /// Requests passed to Hummingbird whose responses have not ended yet.
    private var owed = 0
    /// The lasting request's end has not been read yet: the parts up to it are its own, never
    /// Hummingbird's, even when its refusal has already been written.
    private var readingLastingRequest = false
    /// The lasting request said `Connection: close`: the connection closes once it is answered.
    private var requestSaidClose = false
    /// The server is stopping: the connection closes once the lasting request is answered.
    private var quiescing = false

    init(responder: Responder, streams: LiveStreams, logger: Logger) {
        self.responder = responder
        self.streams = streams
        self.logger = logger
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        if readingLastingRequest {
            // The rest of the lasting request: a GET carries no body.
            if case .end = part { readingLastingRequest = false }
            return
        }
        switch (state, part) {
        case (.passing, .head(let head)):
            let request = APIOperation.mayLast(head) ? Request(head: head, body: RequestBody(buffer: ByteBuffer())) : nil
            guard let request, APIOperation.of(request)?.lasts == true else {
                owed += 1
                return context.fireChannelRead(data)
            }
            readingLastingRequest = true
            requestSaidClose = head.headerFields[.connection]?.lowercased().contains("close") == true
            if owed > 0 {
                state = .waiting(request)
            } else {
                state = .deciding
                decide(request, context: context)
            }
        case (.passing, _):
            context.fireChannelRead(data)
        case (.waiting, _), (.deciding, _), (.streaming, _):
            context.close(promise: nil)
        case (.gone, _):
            break
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch state {
        case .deciding, .streaming:
            // Hummingbird owes no response now: this is its answer to bytes that did not parse.
            promise?.fail(ChannelError.ioOnClosedChannel)
            return context.close(promise: nil)
        case .passing, .waiting, .gone:
            break
        }
        guard case .end = unwrapOutboundIn(data) else { return context.write(data, promise: promise) }
        owed -= 1
        context.write(data, promise: promise)
        if owed == 0, case .waiting(let request) = state {
            state = .deciding
            decide(request, context: context)
        }
    }

    /// A stopping server asks each connection to close once its requests are answered.
    /// Hummingbird, behind, never saw the lasting request and would close at once (an HTTP/2
    /// stream reset in mid-answer); this handler closes the connection once it has answered.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        switch (state, event) {
        case (.deciding, is ChannelShouldQuiesceEvent), (.streaming, is ChannelShouldQuiesceEvent):
            quiescing = true
        default:
            context.fireUserInboundEventTriggered(event)
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        writeStream(context: context)
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        leave()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        leave()
    }

    /// Has the router answer `request` off the event loop, then writes its answer here.
    private func decide(_ request: Request, context: ChannelHandlerContext) {
        let adoption = EventStreamAdoption()
        var requestContext = GatewayRequestContext(source: .init(channel: context.channel, logger: logger))
        requestContext.eventStream = adoption
        let handler = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        let eventLoop = context.eventLoop
        Task { [responder, logger] in
            var response: Response
            do {
                response = try await responder.respond(to: request, context: requestContext)
            } catch {
                // What Hummingbird answers for an error no middleware turned into a response.
                logger.debug("Unrecognised Error", metadata: ["error.type": "\(error)"])
                response = Response(status: .internalServerError)
            }
            let body = CollectedBody()
            do { try await response.body.write(body) } catch { response = Response(status: .internalServerError) }
            let head = response.head
            let bytes = body.buffer
            eventLoop.execute {
                let (handler, context) = handler.value
                handler.respond(head, body: bytes, stream: adoption.stream, context: context)
            }
        }
    }

    private func respond(_ head: HTTPResponse, body: ByteBuffer, stream: LiveStream?, context: ChannelHandlerContext) {
        guard case .deciding = state else {
            stream.map(streams.remove)
            return
        }
        var head = head
        head.headerFields[.date] = HTTPDate.now
        if requestSaidClose { head.headerFields[.connection] = "close" }
        guard let stream, head.status == .ok else {
            stream.map(streams.remove)
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            if body.readableBytes > 0 { context.write(wrapOutboundOut(.body(body)), promise: nil) }
            answered(context: context)
            return
        }
        state = .streaming(stream)
        // The route's response has no body of its own: the stream's length is not known.
        head.headerFields[.contentLength] = nil
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.body(Self.retryInterval)), promise: nil)
        let handler = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        let eventLoop = context.eventLoop
        stream.attach {
            eventLoop.execute {
                let (handler, context) = handler.value
                handler.writeStream(context: context)
            }
        }
    }

    /// Writes what the stream holds, while the connection takes it; ends the response when the
    /// stream has ended.
    private func writeStream(context: ChannelHandlerContext) {
        guard case .streaming(let stream) = state, context.channel.isWritable else { return }
        let next = stream.take()
        if !next.changes.isEmpty {
            context.write(wrapOutboundOut(.body(LiveTimeline.frames(next.changes))), promise: nil)
        } else if next.heartbeat {
            context.write(wrapOutboundOut(.body(Self.heartbeat)), promise: nil)
        }
        if next.ended {
            streams.remove(stream)
            answered(context: context)
        } else {
            context.flush()
        }
    }

    /// Ends the lasting request's response; the connection carries requests again, or closes
    /// once the end is written if the request asked it to or the server is stopping.
    private func answered(context: ChannelHandlerContext) {
        let written = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        guard requestSaidClose || quiescing else {
            state = .passing
            return
        }
        state = .gone
        let channel = context.channel
        written.whenComplete { _ in channel.close(promise: nil) }
    }

    private func leave() {
        if case .streaming(let stream) = state { streams.remove(stream) }
        state = .gone
    }
}

/// A response body as bytes: what a refused lasting request answers is small (a problem).
private final class CollectedBody: ResponseBodyWriter {
    var buffer = ByteBuffer()

    func write(_ buffer: ByteBuffer) async throws {
        var buffer = buffer
        self.buffer.writeBuffer(&buffer)
    }

    func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
