import HTTPTypes
import Hummingbird

/// One operation the gateway serves, as a request is matched to it: by method and path segments,
/// empty segments skipped as the router skips them. What the metrics label a request with, and
/// whether its response lasts (``EventStreamChannelHandler``).
struct APIOperation: Sendable {
    var method: HTTPRequest.Method
    var segments: [Substring]
    /// The method and the route as the API names it: `GET /v1/widgets/{kind}/timeline`.
    var name: String
    var lasts: Bool

    /// Each route of ``GatewayAPI`` and `/healthz`.
    static let all: [APIOperation] =
        GatewayAPI.routes.map { route in
            let segments = (GatewayAPI.pathPrefix + "/" + route.path).split(separator: "/")
            let named = segments.map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0) }.joined(separator: "/")
            return APIOperation(method: route.method, segments: segments, name: "\(route.method) /\(named)", lasts: route.lasts)
        } + [APIOperation(method: .get, segments: ["healthz"], name: "GET /healthz", lasts: false)]

    /// The last path segment of each operation whose response lasts: a request whose path ends
    /// otherwise is not for one, known without matching it (``EventStreamChannelHandler`` asks
    /// for every request).
    static let lastingFinalSegments = Set(all.filter(\.lasts).compactMap { $0.segments.last.map(String.init) })

    /// Whether `head` may be for an operation whose response lasts: its method is GET and the
    /// last segment of its path (before any query) is one of ``lastingFinalSegments``. A cheap
    /// test that ``of(_:)`` then settles.
    static func mayLast(_ head: HTTPRequest) -> Bool {
        guard head.method == .get, let target = head.path else { return false }
        var path = target.prefix { $0 != "?" && $0 != "#" }
        while path.last == "/" { path = path.dropLast() }
        let last = path.lastIndex(of: "/").map { path[path.index(after: $0)...] } ?? path
        return lastingFinalSegments.contains(String(last))
    }

    /// The operation `request` is for; nil when no route takes it.
    static func of(_ request: Request) -> APIOperation? {
        let segments = request.uri.path.split(separator: "/")
        return all.first { operation in
            operation.method == request.method && operation.segments.count == segments.count
                && zip(operation.segments, segments).allSatisfy { $0.hasPrefix(":") || $0 == $1 }
        }
    }
}
