import Foundation
import HTTPTypes
import Hummingbird
import Logging
import WidgetBusProtocol

/// An error answered as RFC 9457 problem details (`application/problem+json`): `type`
/// `urn:widgetbus:problem:<code>`, one per stable code, so a client branches on `type` (or the
/// `code` member) and shows `detail` to no one but a developer. The bus's codes keep their
/// names; the gateway adds its own for what only HTTP has (docs/API.md, "Errors").
struct Problem: HTTPResponseError, Equatable {
    let status: HTTPResponse.Status
    let code: String
    let detail: String
    var headers: HTTPFields = [:]

    init(_ status: HTTPResponse.Status, _ code: String, _ detail: String, headers: HTTPFields = [:]) {
        self.status = status
        self.code = code
        self.detail = detail
        self.headers = headers
    }

    static let typePrefix = "urn:widgetbus:problem:"

    /// The bus's refusal `error` as HTTP: the status its code means.
    init(_ error: ErrorBody) {
        let code = error.code
        var headers: HTTPFields = [:]
        let status: HTTPResponse.Status
        switch code {
        case .badJSON, .missingField, .invalidField, .unknownType, .unsupportedVersion, .invalidUser, .badFrames: status = .badRequest
        case .payloadTooLarge: status = .contentTooLarge
        case .idReused: status = .conflict
        case .unavailable, .wrongShard:  // a slot moving between shards, or redirected too often: retry
            status = .serviceUnavailable
            headers[.retryAfter] = "1"
        case .internalError: status = .internalServerError
        default: status = .unprocessableContent  // a widget rule or setting refused a well-formed request
        }
        self.init(status, code.rawValue, error.message, headers: headers)
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        let body = ProblemBody(type: Self.typePrefix + code, title: status.reasonPhrase, status: status.code, detail: detail, code: code)
        var headers = headers
        headers[.contentType] = "application/problem+json"
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: try WireCodec().encode(body))))
    }

    private struct ProblemBody: Encodable {
        var type: String
        var title: String
        var status: Int
        var detail: String
        var code: String
    }
}

// The gateway's own codes: what HTTP adds to the bus's (docs/API.md, "Errors").
extension Problem {
    static func unauthorized(_ refusal: String, bearerError: String?) -> Problem {
        let challenge = bearerError.map { #"Bearer realm="widgetbus", error="\#($0)", error_description="\#(refusal)""# } ?? #"Bearer realm="widgetbus""#
        return Problem(.unauthorized, "unauthorized", refusal, headers: [.wwwAuthenticate: challenge])
    }

    static func rateLimited(retryAfter seconds: Int, _ detail: String) -> Problem {
        Problem(.tooManyRequests, "rate_limited", detail, headers: [.retryAfter: String(seconds)])
    }

    static func busUnavailable(_ service: String) -> Problem {
        Problem(.serviceUnavailable, ErrorCode.unavailable.rawValue, "\(service) did not answer in time; retry shortly", headers: [.retryAfter: "1"])
    }

    static func badJSON(_ detail: String) -> Problem { Problem(.badRequest, ErrorCode.badJSON.rawValue, detail) }

    static func invalidField(_ detail: String) -> Problem { Problem(.badRequest, ErrorCode.invalidField.rawValue, detail) }

    static let notFound = Problem(.notFound, "not_found", "no such resource")
}

/// Answers every error as problem details: a ``Problem`` as it is, Hummingbird's and NIO's own
/// (no route — also for a method the route lacks: Hummingbird's router answers that as not
/// found —, a body over the limit) with the gateway's codes, and anything
/// else as `internal` without its text, which may say more than a client should know.
struct ProblemMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let problem as Problem {
            throw problem
        } catch let error as any HTTPResponseError {
            let headers = (error as? HTTPError)?.headers ?? [:]
            switch error.status {
            case .notFound: throw Problem.notFound
            case .contentTooLarge: throw Problem(.contentTooLarge, ErrorCode.payloadTooLarge.rawValue, "the body is over the limit")
            default: throw Problem(error.status, "http_\(error.status.code)", error.status.reasonPhrase, headers: headers)
            }
        } catch {
            context.logger.error("request failed", metadata: ["widgetbus.error": "\(error)"])
            throw Problem(.internalServerError, ErrorCode.internalError.rawValue, "the gateway failed; nothing was changed")
        }
    }
}
