import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Hosts on one machine for a test: network namespaces (Debian's iproute2), each joined by a
/// veth pair to a bridge in the test's own namespace, which has the subnet's first address and
/// plays the database host. A host can be cut off (its veth down) and joined again, or taken
/// away (every process in it killed). Needs root; everything is removed when the network is.
final class TestNetwork {
    /// A host: a namespace with one interface, `eth0`, at ``address``.
    struct Host {
        let namespace: String
        let address: String
        /// The bridge side of its veth pair: down cuts the host off.
        let link: String
    }

    /// Whether this process may make namespaces (root, and `ip` present).
    static var isAvailable: Bool {
        geteuid() == 0 && FileManager.default.isExecutableFile(atPath: ip.path)
    }

    private static let ip = URL(fileURLWithPath: "/usr/sbin/ip")
    private let id = String(UUID().uuidString.prefix(4)).lowercased()
    private let subnet = Int.random(in: 10...250)
    private var bridge: String { "wb\(id)" }
    private(set) var hosts: [Host] = []
    /// This namespace's address on the bridge.
    let gateway: String

    init() throws {
        gateway = "10.77.\(subnet).1"
        try Self.run("link", "add", bridge, "type", "bridge")
        try Self.run("addr", "add", "\(gateway)/24", "dev", bridge)
        try Self.run("link", "set", bridge, "up")
    }

    deinit {
        for host in hosts {
            killEverything(in: host)
            _ = try? Self.run("netns", "del", host.namespace)
        }
        _ = try? Self.run("link", "del", bridge)
    }

    /// A new host named `name` (a few letters), at the next address.
    func addHost(_ name: String) throws -> Host {
        let host = Host(namespace: "wb\(id)\(name)", address: "10.77.\(subnet).\(hosts.count + 2)", link: "v\(id)\(name)")
        try Self.run("netns", "add", host.namespace)
        hosts.append(host)
        try Self.run("link", "add", host.link, "type", "veth", "peer", "name", "eth0", "netns", host.namespace)
        try Self.run("link", "set", host.link, "master", bridge, "up")
        try Self.run("-n", host.namespace, "addr", "add", "\(host.address)/24", "dev", "eth0")
        try Self.run("-n", host.namespace, "link", "set", "eth0", "up")
        try Self.run("-n", host.namespace, "link", "set", "lo", "up")
        return host
    }

    /// Starts `executable` in `host`'s namespace.
    func start(_ name: String, _ executable: URL, in host: Host, environment: [String: String], logDirectory: URL) throws -> ServiceProcess {
        try ServiceProcess(
            name: name, executable: Self.ip, environment: environment, logDirectory: logDirectory,
            arguments: ["netns", "exec", host.namespace, executable.path])
    }

    /// Cuts `host` off the network, or joins it again.
    func setConnected(_ host: Host, _ connected: Bool) throws {
        try Self.run("link", "set", host.link, connected ? "up" : "down")
    }

    /// SIGKILL to every process in `host`: the host is gone.
    func killEverything(in host: Host) {
        guard let pids = try? Self.run("netns", "pids", host.namespace) else { return }
        for pid in pids.split(separator: "\n").compactMap({ Int32($0) }) { kill(pid, SIGKILL) }
    }

    @discardableResult
    private static func run(_ arguments: String...) throws -> String {
        let result = try runCommand(ip, arguments, environment: [:])
        guard result.status == 0 else { throw Failure(description: "ip \(arguments.joined(separator: " ")): \(result.stderr)") }
        return result.stdout
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }
}
