import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Gives the caller's bearer token to every operation but `/healthz`. A `401` means the token has
/// run out or was revoked: the provider is asked once more, for a renewed token, and the request
/// is sent again with it; a second `401` is the answer.
struct BearerTokenMiddleware: ClientMiddleware {
    let token: WidgetBusClient.TokenProvider

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        guard operationID != "health" else { return try await next(request, body, baseURL) }
        var request = request
        request.headerFields[.authorization] = "Bearer \(try await bearer(.current))"
        let (response, responseBody) = try await next(request, body, baseURL)
        guard response.status == .unauthorized else { return (response, responseBody) }
        request.headerFields[.authorization] = "Bearer \(try await bearer(.renewed))"
        return try await next(request, body, baseURL)
    }

    private func bearer(_ request: WidgetBusClient.TokenRequest) async throws -> String {
        do { return try await token(request) } catch is CancellationError { throw CancellationError() } catch {
            throw WidgetBusClientError.noToken(error)
        }
    }
}

/// Turns every error answer into a ``WidgetBusClientError``: problem details into
/// ``WidgetBusClientError/problem(_:retryAfter:)``, anything else (a proxy's page) into
/// ``WidgetBusClientError/unexpectedResponse(operation:status:)``. Each operation then handles only
/// its successes, and every refusal reads the same way.
struct ProblemMiddleware: ClientMiddleware {
    /// Problems are a few hundred bytes; a larger one is not the gateway's.
    static let largestProblem = 64 * 1024

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let (response, responseBody) = try await next(request, body, baseURL)
        guard response.status.code >= 400 else { return (response, responseBody) }
        guard response.headerFields[.contentType]?.hasPrefix("application/problem+json") == true, let responseBody else {
            throw WidgetBusClientError.unexpectedResponse(operation: operationID, status: response.status.code)
        }
        // A code this client does not know yet (a newer gateway's) is an unexpected answer, not a
        // transport failure.
        guard let problem = try? JSONDecoder().decode(
            Components.Schemas.Problem.self, from: try await Data(collecting: responseBody, upTo: Self.largestProblem))
        else { throw WidgetBusClientError.unexpectedResponse(operation: operationID, status: response.status.code) }
        let retryAfter = response.headerFields[.retryAfter].flatMap(Int.init).map { Duration.seconds($0) }
        throw WidgetBusClientError.problem(problem, retryAfter: retryAfter)
    }
}

/// Sends `If-None-Match` as written. The OpenAPI runtime percent-encodes header parameters (as
/// OpenAPI 3.1.0 said; 3.1.1 and later say not to: swift-openapi-generator#827), which turns an
/// entity tag's quotes into `%22`, a tag no server matches. The other header parameters the
/// client sends (UUIDs, event ids, `traceparent`) have nothing to encode.
struct EntityTagMiddleware: ClientMiddleware {
    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        if let tags = request.headerFields[.ifNoneMatch] { request.headerFields[.ifNoneMatch] = tags.removingPercentEncoding ?? tags }
        return try await next(request, body, baseURL)
    }
}
