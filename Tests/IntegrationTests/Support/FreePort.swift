import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A loopback TCP port that was free a moment ago (the kernel picks it; we release it at once).
func freeLoopbackPort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw POSIXError(.EMFILE) }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard bound == 0 else { throw POSIXError(.EADDRINUSE) }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// `count` distinct loopback ports that were free a moment ago: the kernel may hand out a port it
/// has just released again, so each is checked against the ones before it.
func freeLoopbackPorts(_ count: Int) throws -> [Int] {
    var ports: [Int] = []
    while ports.count < count {
        let port = try freeLoopbackPort()
        if !ports.contains(port) { ports.append(port) }
    }
    return ports
}
