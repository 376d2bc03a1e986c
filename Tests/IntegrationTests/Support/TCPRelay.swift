import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A TCP relay on a loopback port to another, recording every byte that crosses it in either
/// direction: what a capture on the wire would see, without a capture tool. It can also cut a
/// connection the moment the server starts answering: the server has received and handled the
/// request, the client never sees the answer (a phone losing its network mid-request).
final class TCPRelay: @unchecked Sendable {
    let port: Int
    private let listener: Int32
    private let target: Int
    private let lock = NSLock()
    private var recorded = Data()
    private var answersToCut = 0
    private var answersCut = 0

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

    /// Cuts the connection that next carries bytes from the server, instead of relaying them.
    func cutNextAnswer() { lock.withLock { answersToCut += 1 } }

    /// How many connections were cut so far.
    var cuts: Int { lock.withLock { answersCut } }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            guard let server = try? connectedLoopbackSocket(port: target) else {
                close(client)
                continue
            }
            // Both sockets are closed once both directions are done, never while one still uses them.
            let directionsLeft = NSLock.Counter(2)
            let finish: @Sendable () -> Void = { if directionsLeft.decrement() == 0 { close(client); close(server) } }
            Thread.detachNewThread { [self] in pump(from: client, to: server, towardsClient: false); finish() }
            Thread.detachNewThread { [self] in pump(from: server, to: client, towardsClient: true); finish() }
        }
    }

    private func pump(from source: Int32, to destination: Int32, towardsClient: Bool) {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = read(source, &buffer, buffer.count)
            guard count > 0 else { break }
            let cut = towardsClient && lock.withLock {
                guard answersToCut > 0 else { return false }
                answersToCut -= 1
                answersCut += 1
                return true
            }
            if cut {
                shutdown(source, Int32(SHUT_RDWR))
                shutdown(destination, Int32(SHUT_RDWR))
                return
            }
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

extension NSLock {
    /// A count shared between threads.
    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var value: Int
        init(_ value: Int) { self.value = value }
        /// Counts one down; the count left.
        func decrement() -> Int { lock.withLock { value -= 1; return value } }
    }
}
