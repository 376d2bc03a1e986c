import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Why a call to app-gateway failed.
///
/// The gateway refuses with RFC 9457 problem details whose `code` is one of docs/PROTOCOL.md §9's
/// stable codes (`Problem.Code`, generated from docs/openapi.yaml); branch on it, never on `detail`.
public enum WidgetBusClientError: Error, CustomStringConvertible {
    /// The gateway answered with a problem: a refused intent (`422`), a bad request, a rate limit
    /// (`retryAfter` says when to try again), or a service that did not answer in time (`503`).
    case problem(Components.Schemas.Problem, retryAfter: Duration?)
    /// No answer came: the gateway could not be reached, or the connection dropped before its
    /// answer arrived. Retrying with the same `Idempotency-Key` is safe.
    case unreachable(any Error)
    /// An answer that docs/openapi.yaml does not describe for the operation (its status, when it
    /// was an error status without readable problem details).
    case unexpectedResponse(operation: String, status: Int?)
    /// The token provider threw: there is no token to send (the user signed out, a refresh
    /// failed). Nothing was sent.
    case noToken(any Error)

    /// Whether the same call may succeed if sent again unchanged: nothing arrived, the gateway or a
    /// service was briefly unable (`500`, `503`), or a rate limit will pass.
    public var isTransient: Bool {
        switch self {
        case .unreachable: true
        case .problem(let problem, _): [429, 500, 503].contains(problem.status)
        case .unexpectedResponse(_, let status): (status ?? 0) >= 500
        case .noToken: false
        }
    }

    /// The problem's stable code, when the gateway answered with one.
    public var code: Components.Schemas.Problem.CodePayload? {
        if case .problem(let problem, _) = self { problem.code } else { nil }
    }

    public var description: String {
        switch self {
        case .problem(let problem, _): "\(problem.status) \(problem.code.rawValue): \(problem.detail)"
        case .unreachable(let error): "app-gateway unreachable: \(error)"
        case .unexpectedResponse(let operation, let status): "\(operation): unexpected answer\(status.map { " (status \($0))" } ?? "")"
        case .noToken(let error): "no bearer token: \(error)"
        }
    }

    /// The error a generated client's call threw, as one of these: what the middlewares threw (a
    /// problem, no token), cancellation, a transport failure — no response, or a body cut after a
    /// success status (Apple's URLSession streams bodies, so a dropped connection shows there) —
    /// or an answer outside the contract.
    static func from(_ error: any Error) -> any Error {
        guard let clientError = error as? ClientError else { return error }
        let cause = clientError.underlyingError
        if let known = cause as? WidgetBusClientError { return known }
        if cause is CancellationError || Task.isCancelled { return CancellationError() }
        guard let response = clientError.response else { return WidgetBusClientError.unreachable(cause) }
        if response.status.code < 400, !(cause is DecodingError) { return WidgetBusClientError.unreachable(cause) }
        return WidgetBusClientError.unexpectedResponse(operation: clientError.operationID, status: response.status.code)
    }
}
