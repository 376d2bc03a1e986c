import HTTPTypes
import Hummingbird

/// One operation the gateway serves, as a request is matched to it: by method and path segments,
/// empty segments skipped as the router skips them. What the metrics label a request with, and
/// whether its response lasts (``LastingResponseResponder``).
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

    /// The operation `request` is for; nil when no route takes it.
    static func of(_ request: Request) -> APIOperation? {
        let segments = request.uri.path.split(separator: "/")
        return all.first { operation in
            operation.method == request.method && operation.segments.count == segments.count
                && zip(operation.segments, segments).allSatisfy { $0.hasPrefix(":") || $0 == $1 }
        }
    }
}
