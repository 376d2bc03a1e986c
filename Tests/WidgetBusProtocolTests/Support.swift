import Foundation
import Testing
@testable import WidgetBusProtocol
@testable import WidgetDomain

/// Fixed inputs shared by the protocol tests.
enum Wire {
    /// 2026-11-22T09:30:00Z — a whole second, exact through every encoding.
    static let now = Date(timeIntervalSince1970: 1_795_339_800)
    static let nowText = "2026-11-22T09:30:00.000Z"

    static let checkIn = StressCheckIn(
        id: "abc-123", tensionLevel: 7, suggestedInterventionId: "diaphragm_breathing", createdAt: now)
    static let suggestionState = TensionCheckState(
        phase: .suggestion(intervention: InterventionSuggestion.named("diaphragm_breathing")!, checkIn: checkIn),
        lastSuggestionId: "diaphragm_breathing")
    static let completedState = TensionCheckState(
        phase: .completed(interventionName: "Diaphragm Breathing", checkInId: "abc-123", resetAt: now.addingTimeInterval(5)),
        lastSuggestionId: "diaphragm_breathing")
}

/// A request envelope as a client in any language would write it. Pass `nil` to leave a field out.
func requestJSON(
    version: String? = "1",
    id: String? = #""req-1""#,
    type: String? = #""RecordTensionIntent""#,
    user: String? = #""alice""#,
    sentAt: String? = #""2026-11-22T09:30:00.000Z""#,
    body: String? = #"{"level":7}"#,
    extra: String? = nil
) -> String {
    let fields: [(String, String?)] = [
        ("version", version), ("id", id), ("type", type), ("user", user), ("sentAt", sentAt), ("body", body),
    ]
    var members = fields.compactMap { key, value in value.map { "\"\(key)\":\($0)" } }
    if let extra { members.append(extra) }
    return "{" + members.joined(separator: ",") + "}"
}

/// JSON string literal of `text` (quoted and escaped).
func quoted(_ text: String) -> String {
    String(decoding: try! JSONEncoder().encode(text), as: UTF8.self)
}

/// Decodes `payload`, expecting a refusal, and returns its code.
func refusal(_ payload: Data, sourceLocation: SourceLocation = #_sourceLocation) -> ErrorCode? {
    do {
        let request = try Request.decode(payload, codec: WireCodec())
        Issue.record("expected a ProtocolError, decoded \(request)", sourceLocation: sourceLocation)
        return nil
    } catch {
        return error.code
    }
}

func refusal(_ json: String, sourceLocation: SourceLocation = #_sourceLocation) -> ErrorCode? {
    refusal(Data(json.utf8), sourceLocation: sourceLocation)
}

func decodeRequest(_ json: String) throws -> Request {
    try Request.decode(Data(json.utf8), codec: WireCodec())
}

func jsonObject(_ data: Data) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
}

func text(_ data: Data) -> String { String(decoding: data, as: UTF8.self) }
