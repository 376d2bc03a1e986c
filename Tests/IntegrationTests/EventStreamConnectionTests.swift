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
        var others: [RawConnection] = []
        defer { for other in others { other.close() } }
        for _ in 0..<8 {
            let other = try RawConnection(port: gateway.port)
            others.append(other)
            try other.send("GET /v1/events HTTP/1.1\r\nHost: gateway\r\nAuthorization: Bearer \(token)\r\n\r\n")
            _ = try other.read(until: "retry: 1000\n\n")
        }
        _ = try connection.read(until: "0\r\n\r\n")

        try connection.send("GET /healthz HTTP/1.1\r\nHost: gateway\r\n\r\n")
        let again = try connection.read(until: #"{"status":"ok"}"#)
        #expect(again.hasPrefix("HTTP/1.1 200 OK"), "\(again)")
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

    func close() {
        Glibc.close(socket)
    }
}
