import Foundation

/// Where `widgetbus-loadtest` may send load without `--allow-remote`: this machine (loopback
/// addresses, `localhost`, ipc:// and inproc://) or a compose-internal service name — a
/// single-label host name such as `intent-handler`, which only a container network (or a
/// resolver's search domain: the reason this is a guard against mistakes, not a security
/// boundary) can resolve.
enum LoadTestTargetPolicy {
    /// Why `endpoint` is refused, or nil when it is allowed.
    static func refusal(of endpoint: String) -> String? {
        if endpoint.hasPrefix("ipc://") || endpoint.hasPrefix("inproc://") { return nil }
        guard let host = host(of: endpoint) else {
            return "cannot tell the host of \(endpoint)"
        }
        if isLoopback(host) || isComposeServiceName(host) { return nil }
        return "\(endpoint) is neither loopback nor a compose service name"
    }

    /// The host of `tcp://host:port` (brackets of an IPv6 literal removed).
    static func host(of endpoint: String) -> String? {
        guard endpoint.hasPrefix("tcp://") else { return nil }
        let address = endpoint.dropFirst("tcp://".count)
        guard let colon = address.lastIndex(of: ":") else { return nil }
        var host = String(address[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        // A ZeroMQ endpoint may name the local interface first: tcp://eth0;host:port.
        if let semicolon = host.lastIndex(of: ";") { host = String(host[host.index(after: semicolon)...]) }
        return host.isEmpty ? nil : host
    }

    static func isLoopback(_ host: String) -> Bool {
        let lowered = host.lowercased()
        if lowered == "localhost" || lowered.hasSuffix(".localhost") || lowered == "::1" { return true }
        let octets = lowered.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets.first == "127" && octets.allSatisfy { UInt8($0) != nil }
    }

    /// A compose service name: one DNS label (letters, digits, `-`, `_`), not an IP address.
    static func isComposeServiceName(_ host: String) -> Bool {
        !host.isEmpty && host.count <= 63 && !host.contains(".") && !host.contains(":") && host.first != "-"
            && host.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_") }
            && !host.allSatisfy(\.isNumber)
    }
}
