import Hummingbird
import Metrics
import Observability

/// Counts and times every request by operation and status (docs/OBSERVABILITY.md). The operation
/// is the method and the route as the API names it (`GET /v1/widgets/{kind}/timeline`), never the
/// path as sent: a path holds a push token or a widget kind a client chose, and a label takes
/// few values. A request no route takes is `other`.
struct GatewayMetricsMiddleware: RouterMiddleware {
    func handle(
        _ request: Request, context: GatewayRequestContext, next: (Request, GatewayRequestContext) async throws -> Response
    ) async throws -> Response {
        let operation = APIOperation.of(request)?.name ?? "other"
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
}
