import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Hands messages from any thread or task to the thread that runs a ``Bus``, and wakes that
/// thread's poll at once: the bus polls the read end of a pipe beside its sockets, and a post
/// writes one byte to it unless a wake-up is already waiting. libzmq sockets cannot be shared
/// between threads, so this is how async work (a sync pass, a Postgres round trip) gives the bus
/// something to send.
public final class BusMailbox<Message: Sendable>: Sendable {
    private struct Box {
        var messages: [Message] = []
        /// A byte is in the pipe that the bus has not read yet.
        var rung = false
        var closed = false
    }

    private let box = Mutex(Box())
    let readEnd: Int32
    private let writeEnd: Int32

    public init() throws {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw BusError.pipe(errno) }
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        (readEnd, writeEnd) = (ends[0], ends[1])
    }

    /// Queues `message` for the bus thread; false when the bus has closed and it will never be read.
    @discardableResult
    public func post(_ message: Message) -> Bool {
        box.withLock { box in
            guard !box.closed else { return false }
            box.messages.append(message)
            if !box.rung {
                box.rung = true
                var byte: UInt8 = 1
                _ = write(writeEnd, &byte, 1)
            }
            return true
        }
    }

    /// Everything posted so far, in order. Called on the bus thread.
    func take() -> [Message] {
        var bytes = (UInt64(0), UInt64(0))
        while withUnsafeMutableBytes(of: &bytes, { read(readEnd, $0.baseAddress, $0.count) }) > 0 {}
        return box.withLock { box in
            defer { (box.messages, box.rung) = ([], false) }
            return box.messages
        }
    }

    deinit {
        close()  // a mailbox no bus took still gives its descriptors back
    }

    /// Closes the pipe; later posts are refused. Called on the bus thread.
    func close() {
        box.withLock { box in
            guard !box.closed else { return }
            box.closed = true
            closeDescriptor(readEnd)
            closeDescriptor(writeEnd)
        }
    }
}

private func closeDescriptor(_ descriptor: Int32) {
    #if canImport(Glibc)
    _ = Glibc.close(descriptor)
    #elseif canImport(Darwin)
    _ = Darwin.close(descriptor)
    #endif
}
