import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// An event stream on an HTTP/1.1 connection, byte by byte: the gateway writes streams from the
/// connection's pipeline, beside Hummingbird's own responses on the same connection.
@Suite("app-gateway: an event stream on an HTTP/1.1 connection", .serialized, .blockingThreads)
struct EventStreamConnectionTests {
    @Test("a stream asked for behind a pipelined request starts after its response, and the connection serves requests again once the stream ends")
    func pipelinedThenReused() throws {
        let gateway = try GatewayFixture(tls: false, services: [.intentHandler, .timelineService])
        let token = try gateway.token("pia")
        let connection = try RawConnection(port: gateway.port)
        defer { connection.close() }

        try connection.send(
            "GET /healthz HTTP/1.1\r\nHost: gateway\r\n\r\n"
                + "GET /v1/events HTTP/1.1\r\nHost: gateway\r\nAuthorization: Bearer \(token)\r\n\r\n")
        let opened = try connection.read(until: "retry: 1000\n\n")
        let health = try #require(opened.range(of: #"{"status":"ok"}"#), "\(opened)")
        let stream = try #require(opened.range(of: "text/event-stream"), "\(opened)")
        #expect(health.upperBound <= stream.lowerBound, "the pipelined request is answered first: \(opened)")
        #expect(opened.components(separatedBy: "HTTP/1.1 200 OK").count == 3, "two responses: \(opened)")

        // Eight more streams of the same user end this one, the oldest: its chunked body ends.
        let others = try (0..<8).map { _ in try RawConnection(streamOn: gateway, token: token) }
        defer { for other in others { other.close() } }
        _ = try connection.read(until: "0\r\n\r\n")

        try connection.send("GET /healthz HTTP/1.1\r\nHost: gateway\r\n\r\n")
        let again = try connection.read(until: #"{"status":"ok"}"#)
        #expect(again.hasPrefix("HTTP/1.1 200 OK"), "\(again)")
    }

    @Test("a stream refused before the rest of its request came leaves the connection serving requests; one that said Connection: close closes it; both answers are dated")
    func refusedBeforeItsEnd() throws {
        let gateway = try GatewayFixture(tls: false, services: [.intentHandler, .timelineService])
        let connection = try RawConnection(port: gateway.port)
        defer { connection.close() }

        // No token: refused 401 at once, before the four bytes of the request's body are sent.
        try connection.send("GET /v1/events HTTP/1.1\r\nHost: gateway\r\nContent-Length: 4\r\n\r\n")
        let refused = try connection.read(until: "}")
        #expect(refused.hasPrefix("HTTP/1.1 401 Unauthorized"), "\(refused)")
        #expect(refused.lowercased().contains("\r\ndate: "), "dated: \(refused)")
        try connection.send("abcd" + "GET /healthz HTTP/1.1\r\nHost: gateway\r\n\r\n")
        let health = try connection.read(until: #"{"status":"ok"}"#)
        #expect(health.hasPrefix("HTTP/1.1 200 OK"), "the body is the stream request's, not a request of its own: \(health)")

        try connection.send("GET /v1/events HTTP/1.1\r\nHost: gateway\r\nConnection: close\r\n\r\n")
        let closing = connection.readUntilClosed()
        #expect(closing.closed, "the connection closes after the refusal: \(closing.text)")
        #expect(closing.text.hasPrefix("HTTP/1.1 401 Unauthorized"), "\(closing.text)")
        #expect(closing.text.lowercased().contains("\r\nconnection: close\r\n"), "\(closing.text)")
    }

    @Test("a connection with no request in progress closes after the idle timeout; one writing a stream stays open")
    func idleTimeoutSparesStreams() throws {
        let gateway = try GatewayFixture(
            tls: false, services: [.intentHandler, .timelineService], extraEnvironment: ["WIDGETBUS_GATEWAY_IDLE_TIMEOUT_S": "1"])
        let token = try gateway.token("pia")
        let stream = try RawConnection(streamOn: gateway, token: token)
        defer { stream.close() }

        let idle = try RawConnection(port: gateway.port)
        defer { idle.close() }
        try idle.send("GET /healthz HTTP/1.1\r\nHost: gateway\r\n\r\n")
        _ = try idle.read(until: #"{"status":"ok"}"#)
        #expect(idle.readUntilClosed().closed, "closed a second after its response")

        // The stream's connection, older and as silent, is still open: a ninth stream ends it.
        let others = try (0..<8).map { _ in try RawConnection(streamOn: gateway, token: token) }
        defer { for other in others { other.close() } }
        _ = try stream.read(until: "0\r\n\r\n")
    }

    @Test("bytes that do not parse behind an open stream close the connection, with no 400 inside the stream's body")
    func garbageBehindAStream() throws {
        let gateway = try GatewayFixture(tls: false, services: [.intentHandler, .timelineService])
        let connection = try RawConnection(streamOn: gateway, token: try gateway.token("pia"))
        defer { connection.close() }

        try connection.send("NOT HTTP\u{0}\r\n\r\n")
        let rest = connection.readUntilClosed()
        #expect(rest.closed, "\(rest.text)")
        #expect(!rest.text.contains("400"), "\(rest.text)")
    }
}

/// A TCP connection to the gateway, written and read as text.
private final class RawConnection {
    private let socket: Int32

    init(port: Int) throws {
        socket = try connectedLoopbackSocket(port: port)
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    /// A connection whose stream of `token`'s user is open (its head and `retry` read).
    convenience init(streamOn gateway: GatewayFixture, token: String) throws {
        try self.init(port: gateway.port)
        try send("GET /v1/events HTTP/1.1\r\nHost: gateway\r\nAuthorization: Bearer \(token)\r\n\r\n")
        _ = try read(until: "retry: 1000\n\n")
    }

    func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        guard Glibc.send(socket, bytes, bytes.count, 0) == bytes.count else { throw POSIXError(.EIO) }
    }

    /// What arrives until `marker` has (five seconds at most for each read).
    func read(until marker: String) throws -> String {
        var received = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 4_096)
        while !String(decoding: received, as: UTF8.self).contains(marker) {
            let count = recv(socket, &chunk, chunk.count, 0)
            guard count > 0 else {
                Issue.record("the connection ended or went silent before \(marker.debugDescription): \(String(decoding: received, as: UTF8.self))")
                throw POSIXError(.ETIMEDOUT)
            }
            received += chunk[0..<count]
        }
        return String(decoding: received, as: UTF8.self)
    }

    /// What arrives until the gateway closes the connection, and whether it did (within five
    /// seconds of silence).
    func readUntilClosed() -> (text: String, closed: Bool) {
        var received = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 4_096)
        while true {
            let count = recv(socket, &chunk, chunk.count, 0)
            guard count > 0 else { return (String(decoding: received, as: UTF8.self), count == 0 || errno == ECONNRESET) }
            received += chunk[0..<count]
        }
    }

    func close() {
        Glibc.close(socket)
    }
}
