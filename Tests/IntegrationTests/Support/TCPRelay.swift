import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A TCP relay on a loopback port to another, recording every byte that crosses it in either
/// direction: what a capture on the wire would see, without a capture tool.
final class TCPRelay: @unchecked Sendable {
    let port: Int
    private let listener: Int32
    private let target: Int
    private let lock = NSLock()
    private var recorded = Data()

    init(to target: Int) throws {
        (listener, port) = try boundLoopbackSocket()
        self.target = target
        guard listen(listener, 16) == 0 else { throw POSIXError(.EADDRINUSE) }
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    deinit {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    /// Everything relayed so far, both directions.
    var bytes: Data { lock.withLock { recorded } }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            guard let server = try? connectedLoopbackSocket(port: target) else {
                close(client)
                continue
            }
            Thread.detachNewThread { [self] in pump(from: client, to: server) }
            Thread.detachNewThread { [self] in pump(from: server, to: client) }
        }
    }

    private func pump(from source: Int32, to destination: Int32) {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = read(source, &buffer, buffer.count)
            guard count > 0 else { break }
            lock.withLock { recorded.append(contentsOf: buffer[..<count]) }
            var sent = 0
            while sent < count {
                let written = buffer[sent..<count].withUnsafeBytes { write(destination, $0.baseAddress, $0.count) }
                guard written > 0 else { break }
                sent += written
            }
        }
        shutdown(destination, Int32(SHUT_WR))
    }
}
