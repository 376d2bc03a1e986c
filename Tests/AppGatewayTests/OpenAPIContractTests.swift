import Foundation
import HTTPTypes
import Testing
import WidgetBusProtocol
import WidgetDomain
import Yams

@testable import AppGateway

/// docs/openapi.yaml is the HTTP API's contract: these tests hold it to what the gateway serves
/// (``GatewayAPI/routes``) and to the protocol's catalogs it repeats (the intent types, the widget
/// kinds, the error codes), so a route, a message type or a code added on one side and not the
/// other fails here. scripts/check-openapi.sh checks the running gateway's answers against it.
@Suite struct OpenAPIContractTests {
    let document: [String: Any]

    init() throws {
        // Tests/AppGatewayTests/OpenAPIContractTests.swift → the repository's root.
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent("docs/openapi.yaml"), encoding: .utf8)
        document = try #require(try Yams.load(yaml: text) as? [String: Any], "docs/openapi.yaml is not a YAML mapping")
    }

    static let methods: Set<String> = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

    /// Every operation of the document: (method, path) with its object.
    var operations: [(method: String, path: String, operation: [String: Any])] {
        let paths = document["paths"] as? [String: Any] ?? [:]
        return paths.flatMap { path, item in
            (item as? [String: Any] ?? [:]).compactMap { key, value in
                Self.methods.contains(key) ? (key, path, value as? [String: Any] ?? [:]) : nil
            }
        }
    }

    @Test func theOperationsUnderV1AreTheGatewaysRoutes() {
        let documented = Set(operations.filter { $0.path.hasPrefix("/v1/") }.map { "\($0.method) \($0.path)" })
        let served = Set(
            GatewayAPI.routes.map { route in
                let path = route.path.split(separator: "/", omittingEmptySubsequences: false)
                    .map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0) }
                    .joined(separator: "/")
                return "\(route.method.rawValue.lowercased()) /v1/\(path)"
            })
        #expect(served.count == GatewayAPI.routes.count, "two routes share a method and path")
        #expect(documented.subtracting(served).sorted() == [], "documented, not served")
        #expect(served.subtracting(documented).sorted() == [], "served, not documented")
    }

    @Test func theIntentTypesAreExactlyWhatAppsMaySend() throws {
        let schema = try #require(
            value(at: ["paths", "/v1/intents", "post", "requestBody", "content", "application/json", "schema"]) as? [String: Any])
        #expect(value(at: ["properties", "type", "$ref"], in: schema) as? String == "#/components/schemas/AppMessageType")
        let type = try #require(value(at: ["components", "schemas", "AppMessageType"]) as? [String: Any])
        let documented = try #require(type["enum"] as? [String], "the intents body's type has no enum of strings")
        #expect(Set(documented).count == documented.count, "the enum repeats a type")
        let sentByApps = Set(MessageType.sentByApps.map(\.rawValue))
        #expect(Set(documented).subtracting(sentByApps).sorted() == [], "documented, but POST /v1/intents refuses them")
        #expect(sentByApps.subtracting(documented).sorted() == [], "taken by POST /v1/intents, not documented")
        #expect(schema["additionalProperties"] as? Bool == false)
        #expect(schema["required"] as? [String] == ["type"])
    }

    @Test func theKindPathParameterIsEveryWidgetKind() throws {
        let kinds = WidgetKind.allCases.map(\.rawValue)
        let timelinePaths = operations.filter { $0.path.contains("{kind}") }
        #expect(!timelinePaths.isEmpty)
        for (method, path, operation) in timelinePaths {
            let parameter = try #require(
                parameters(of: operation, path: path).first { $0["name"] as? String == "kind" && $0["in"] as? String == "path" },
                "\(method) \(path) has no kind path parameter")
            let schema = try resolved(parameter["schema"] as? [String: Any] ?? [:])
            let documented = try #require(schema["enum"] as? [String], "\(method) \(path): kind has no enum")
            #expect(Set(documented).subtracting(kinds).sorted() == [], "\(method) \(path): not widget kinds")
            #expect(Set(kinds).subtracting(documented).sorted() == [], "\(method) \(path): widget kinds missing")
        }
    }

    @Test func theProblemCodesIncludeEveryBusErrorCode() throws {
        let problem = try #require(value(at: ["components", "schemas", "Problem"]) as? [String: Any])
        let codes = try #require(value(at: ["properties", "code", "enum"], in: problem) as? [String], "Problem.code has no enum")
        let missing = Set(ErrorCode.all.map(\.rawValue)).subtracting(codes)
        #expect(missing.sorted() == [], "bus error codes the gateway passes on, missing from Problem.code")
        #expect(Set(codes).count == codes.count, "Problem.code repeats a code")
        for own in ["unauthorized", "rate_limited", "not_found", "unsupported_media_type", "no_snapshot"] {
            #expect(codes.contains(own), "Problem.code lacks the gateway's \(own)")
        }
        #expect(Set(problem["required"] as? [String] ?? []) == ["type", "title", "status", "detail", "code"])
    }

    /// Each bus error code is answered with the status ``Problem`` gives it, and the document's
    /// problem response for that status lists the code.
    @Test func eachBusErrorCodeIsDocumentedUnderTheStatusItIsAnsweredWith() throws {
        var codesByStatus: [Int: Set<String>] = [:]
        for (name, response) in value(at: ["components", "responses"]) as? [String: Any] ?? [:] {
            guard let schema = value(at: ["content", "application/problem+json", "schema"], in: response) as? [String: Any] else { continue }
            let narrowing = try #require((schema["allOf"] as? [Any])?.last as? [String: Any], "response \(name) is not allOf Problem")
            let status = try #require(value(at: ["properties", "status", "const"], in: narrowing) as? Int, "response \(name) has no status")
            let code = value(at: ["properties", "code"], in: narrowing) as? [String: Any] ?? [:]
            let codes = (code["enum"] as? [String] ?? []) + [code["const"] as? String].compactMap { $0 }
            codesByStatus[status, default: []].formUnion(codes)
        }
        for code in ErrorCode.all {
            let status = Problem(ErrorBody(code: code, message: "")).status.code
            #expect(codesByStatus[status]?.contains(code.rawValue) == true, "\(code) is answered \(status), which no problem response documents")
        }
    }

    @Test func everyV1OperationRequiresTheBearerToken() throws {
        #expect(document["openapi"] as? String == "3.1.0")
        let scheme = try #require(value(at: ["components", "securitySchemes", "bearerAuth"]) as? [String: Any])
        #expect(scheme["type"] as? String == "http")
        #expect(scheme["scheme"] as? String == "bearer")
        #expect(scheme["bearerFormat"] as? String == "JWT")
        let v1 = operations.filter { $0.path.hasPrefix("/v1/") }
        #expect(v1.count == GatewayAPI.routes.count)
        for (method, path, operation) in v1 {
            // An operation's own `security` overrides the document's.
            let security = (operation["security"] ?? document["security"]) as? [[String: Any]] ?? []
            #expect(security.count == 1 && security.first?.keys.sorted() == ["bearerAuth"], "\(method) \(path) does not require bearerAuth alone")
            let responses = operation["responses"] as? [String: Any] ?? [:]
            #expect(responses["401"] != nil, "\(method) \(path) does not document 401")
        }
        let health = try #require(value(at: ["paths", "/healthz", "get"]) as? [String: Any])
        #expect((health["security"] as? [Any])?.isEmpty == true, "/healthz must need no token")
    }

    // MARK: - Reading the document

    private func value(at path: [String]) -> Any? {
        value(at: path, in: document)
    }

    private func value(at path: [String], in root: Any) -> Any? {
        path.reduce(Optional(root)) { node, key in (node as? [String: Any])?[key] }
    }

    /// `object`, or what its `$ref` (`#/a/b/c`) names in the document.
    private func resolved(_ object: [String: Any]) throws -> [String: Any] {
        guard let reference = object["$ref"] as? String else { return object }
        #expect(reference.hasPrefix("#/"), "only local references: \(reference)")
        let path = reference.dropFirst(2).split(separator: "/").map(String.init)
        return try #require(value(at: path) as? [String: Any], "\(reference) names nothing")
    }

    /// The operation's parameters and its path item's, references resolved.
    private func parameters(of operation: [String: Any], path: String) throws -> [[String: Any]] {
        let shared = value(at: ["paths", path, "parameters"]) as? [Any] ?? []
        let own = operation["parameters"] as? [Any] ?? []
        return try (shared + own).map { try resolved($0 as? [String: Any] ?? [:]) }
    }
}
