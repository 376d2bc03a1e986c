import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The ports handed out in this test process.
private let handedOut = Mutex<Set<Int>>([])

/// A loopback TCP port that was free a moment ago and that no other test of this process got:
/// the kernel picks it and it is released at once, and the kernel may hand a just-released port
/// out again — to the next endpoint of the same fixture or to a test running beside it — before
/// the service that was given it binds.
func freeLoopbackPort() throws -> Int {
    while true {
        let port = try kernelPickedPort()
        if handedOut.withLock({ $0.insert(port).inserted }) { return port }
    }
}

private func kernelPickedPort() throws -> Int {
    let (fd, port) = try boundLoopbackSocket()
    close(fd)
    return port
}

/// A TCP socket bound to a loopback port the kernel picks, and that port. The caller closes it.
func boundLoopbackSocket() throws -> (descriptor: Int32, port: Int) {
    let fd = try loopbackSocket(port: 0, throwing: .EADDRINUSE, bind)
    var address = sockaddr_in()
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    return (fd, Int(UInt16(bigEndian: address.sin_port)))
}

/// A TCP socket connected to `port` on loopback. The caller closes it.
func connectedLoopbackSocket(port: Int) throws -> Int32 {
    try loopbackSocket(port: port, throwing: .ECONNREFUSED, connect)
}

/// A new TCP socket given to `call` (`bind`, `connect`) with 127.0.0.1:`port`; closed and
/// `failure` thrown when the call fails.
private func loopbackSocket(
    port: Int, throwing failure: POSIXErrorCode, _ call: (Int32, UnsafePointer<sockaddr>, socklen_t) -> Int32
) throws -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw POSIXError(.EMFILE) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let result = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { call(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard result == 0 else {
        close(fd)
        throw POSIXError(failure)
    }
    return fd
}
