import Foundation
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL
import Synchronization

/// A stand-in for APNs on a free loopback port, for push-gateway's tests and benchmark: HTTP/2
/// over TLS (swift-nio-http2 and NIOSSL), with a certificate made at start by a CA of its own
/// (``LocalhostCertificates``),
/// whose PEM a gateway is told to trust. It records every request and answers each as scripted:
/// 200 by default, or a status and reason per token for as many requests as scripted.
public final class FakeAPNs: Sendable {
    public struct Request: Sendable {
        public var method: String
        public var path: String
        public var headers: [String: String]
        public var body: String
        public var arrivedAt: Date

        public var token: String { String(path.split(separator: "/").last ?? "") }
    }

    public struct Answer: Sendable {
        public var status: Int
        public var reason: String?
        public var retryAfter: Int?
        /// Seconds the answer waits: a push held in flight.
        public var delay: Double?

        public init(status: Int, reason: String? = nil, retryAfter: Int? = nil, delay: Double? = nil) {
            self.status = status
            self.reason = reason
            self.retryAfter = retryAfter
            self.delay = delay
        }
    }

    public let port: Int
    /// The CA certificate that signed the server's, as PEM: what a client trusts.
    public let caPEM: String
    private let channel: any Channel
    private let record = Record()

    private struct State {
        var requests: [Request] = []
        var scripted: [String: [Answer]] = [:]
    }

    /// What the server's stream handlers and the test share.
    private final class Record: Sendable {
        let state = Mutex(State())
    }

    public init() throws {
        let certificates = try LocalhostCertificates()
        caPEM = certificates.caPEM
        var tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(try NIOSSLCertificate(bytes: Array(certificates.serverCertificatePEM.utf8), format: .pem))],
            privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(certificates.serverKeyPEM.utf8), format: .pem)))
        tls.applicationProtocols = ["h2"]
        let context = try NIOSSLContext(configuration: tls)
        let record = record
        channel = try ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
                }.flatMap {
                    channel.configureHTTP2Pipeline(mode: .server) { stream in
                        stream.eventLoop.makeCompletedFuture {
                            try stream.pipeline.syncOperations.addHandlers([
                                HTTP2FramePayloadToHTTP1ServerCodec(), RequestHandler(record: record),
                            ])
                        }
                    }.map { _ in }
                }
            }
            .bind(host: "127.0.0.1", port: 0).wait()
        port = channel.localAddress!.port!
    }

    deinit {
        try? channel.close().wait()
    }

    /// The base URL to give a gateway for either environment.
    public var url: String { "https://localhost:\(port)" }

    /// Every request so far, in arrival order.
    public var requests: [Request] { record.state.withLock { $0.requests } }

    /// How many requests arrived so far.
    public var requestCount: Int { record.state.withLock { $0.requests.count } }

    /// The next requests to `token` get these answers, in order; after them, 200.
    public func script(_ token: String, _ answers: [Answer]) {
        record.state.withLock { $0.scripted[token, default: []] += answers }
    }

    private final class RequestHandler: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart

        private let record: Record
        private var head: HTTPRequestHead?
        private var body = ""

        init(record: Record) { self.record = record }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head): self.head = head
            case .body(let buffer): body += String(buffer: buffer)
            case .end:
                guard let head else { return }
                let request = Request(
                    method: head.method.rawValue, path: head.uri,
                    headers: Dictionary(head.headers.map { ($0.name.lowercased(), $0.value) }) { $1 }, body: body, arrivedAt: Date())
                let answer = record.state.withLock { state -> Answer in
                    state.requests.append(request)
                    guard var answers = state.scripted[request.token], !answers.isEmpty else { return Answer(status: 200) }
                    let answer = answers.removeFirst()
                    state.scripted[request.token] = answers
                    return answer
                }
                var headers = HTTPHeaders([("apns-id", head.headers.first(name: "apns-id") ?? UUID().uuidString)])
                if let retryAfter = answer.retryAfter { headers.add(name: "retry-after", value: "\(retryAfter)") }
                let reply = answer.reason.map { #"{"reason":"\#($0)"}"# } ?? ""
                if !reply.isEmpty { headers.add(name: "content-type", value: "application/json") }
                let respond = { [self] in
                    context.write(
                        wrapOutboundOut(.head(HTTPResponseHead(version: .http2, status: .init(statusCode: answer.status), headers: headers))),
                        promise: nil)
                    if !reply.isEmpty { context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: reply)))), promise: nil) }
                    context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
                }
                if let delay = answer.delay {
                    context.eventLoop.assumeIsolated().scheduleTask(in: .milliseconds(Int64(delay * 1_000))) { respond() }
                } else {
                    respond()
                }
            }
        }
    }
}
