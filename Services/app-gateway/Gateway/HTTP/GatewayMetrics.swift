import Hummingbird
import Metrics
import ServiceSupport

/// Counts and times every request by operation and status (docs/OBSERVABILITY.md). The operation
/// is the method and the route as the API names it (`GET /v1/widgets/{kind}/timeline`), never the
/// path as sent: a path holds a push token or a widget kind a client chose, and a label takes
/// few values. A request no route takes is `other`.
struct GatewayMetricsMiddleware: RouterMiddleware {
    func handle(
        _ request: Request, context: GatewayRequestContext, next: (Request, GatewayRequestContext) async throws -> Response
    ) async throws -> Response {
        let operation = Self.operation(of: request)
        let started = ContinuousClock.now
        do {
            let response = try await next(request, context)
            Self.record(operation, status: response.status.code, since: started)
            return response
        } catch let error as any HTTPResponseError {
            Self.record(operation, status: error.status.code, since: started)
            throw error
        }
    }

    private static func record(_ operation: String, status: Int, since started: ContinuousClock.Instant) {
        Counter(MetricCatalog.gatewayRequests, ["operation": operation, "status": String(status)]).increment()
        Timer(MetricCatalog.gatewayRequestDuration, ["operation": operation]).recordNanoseconds(
            Int64((ContinuousClock.now - started) / .nanoseconds(1)))
    }

    /// The named operations: each route of ``GatewayAPI`` and `/healthz`, by their path segments.
    private static let operations: [(method: HTTPRequest.Method, segments: [Substring], name: String)] =
        GatewayAPI.routes.map { route in
            let segments = ("v1/" + route.path).split(separator: "/")
            let named = segments.map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0) }.joined(separator: "/")
            return (route.method, segments, "\(route.method) /\(named)")
        } + [(.get, ["healthz"], "GET /healthz")]

    static func operation(of request: Request) -> String {
        let segments = request.uri.path.split(separator: "/")
        return operations.first { operation in
            operation.method == request.method && operation.segments.count == segments.count
                && zip(operation.segments, segments).allSatisfy { $0.hasPrefix(":") || $0 == $1 }
        }?.name ?? "other"
    }
}
