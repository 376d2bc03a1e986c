// Shared by WidgetBusProtocolTests and ServiceSupportTests: each of those folders holds a
// symbolic link to this file (Tests/GoldenSupport is no target of its own). Public API only.

import Foundation
import Testing
import WidgetBusProtocol
import WidgetDomain

/// A folder of golden files: the exact bytes an encoding produced when they were recorded, one
/// `<name>.json` each, with nothing added (no trailing newline). The folder of a test target is
/// `Tests/Golden/<target>/`: outside the target's own folder, so that SwiftPM, which would warn
/// about files it does not handle there, needs no resource declaration.
///
/// With `WIDGETBUS_RECORD_GOLDEN=1` in the environment, ``check(_:_:sourceLocation:)`` writes the
/// file instead of comparing: `WIDGETBUS_RECORD_GOLDEN=1 swift test --filter Golden`. Otherwise a
/// missing or different file is a test failure that names the first differing byte.
struct GoldenFiles: Sendable {
    static let recordingVariable = "WIDGETBUS_RECORD_GOLDEN"

    static var isRecording: Bool {
        ProcessInfo.processInfo.environment[recordingVariable] == "1"
    }

    /// `Tests/Golden/<target>/`.
    let directory: URL

    /// - Parameter filePath: the `#filePath` of a test file in the target's folder.
    init(forTestFile filePath: String) {
        let target = URL(fileURLWithPath: filePath).deletingLastPathComponent()
        directory = target.deletingLastPathComponent().appendingPathComponent("Golden", isDirectory: true)
            .appendingPathComponent(target.lastPathComponent, isDirectory: true)
    }

    func url(of name: String) -> URL {
        directory.appendingPathComponent(name + ".json", isDirectory: false)
    }

    /// The golden bytes of `name`, or nil when there is no such file.
    func stored(_ name: String) -> Data? {
        try? Data(contentsOf: url(of: name))
    }

    /// The names of the golden files in the folder (without `.json`).
    func storedNames() throws -> Set<String> {
        guard FileManager.default.fileExists(atPath: directory.path) else { return [] }
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        return Set(files.filter { $0.hasSuffix(".json") }.map { String($0.dropLast(".json".count)) })
    }

    /// Records `actual` as the golden file `name`, or checks that it is byte for byte that file.
    func check(_ actual: Data, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        if Self.isRecording {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try actual.write(to: url(of: name), options: .atomic)
            return
        }
        guard let expected = stored(name) else {
            Issue.record(
                Comment(rawValue: """
                    golden file \(name).json is missing (\(url(of: name).path)); record it with \
                    \(Self.recordingVariable)=1 swift test --filter Golden
                    """),
                sourceLocation: sourceLocation)
            return
        }
        if let difference = Self.difference(expected: expected, actual: actual) {
            Issue.record(
                Comment(rawValue: "\(name): the encoding is not the golden file's bytes. \(difference)"),
                sourceLocation: sourceLocation)
        }
    }

    /// Checks that the golden bytes of `name`, decoded and encoded again, are unchanged.
    func expectRoundTrip(
        _ golden: Data, _ reencoded: Data, _ name: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        if let difference = Self.difference(expected: golden, actual: reencoded) {
            Issue.record(
                Comment(rawValue: "\(name): decoding the golden bytes and encoding again changed them. \(difference)"),
                sourceLocation: sourceLocation)
        }
    }

    /// Where `actual` first differs from `expected`, with both sides around that byte; nil when
    /// they are equal.
    static func difference(expected: Data, actual: Data) -> String? {
        guard expected != actual else { return nil }
        let expectedBytes = [UInt8](expected)
        let actualBytes = [UInt8](actual)
        let common = min(expectedBytes.count, actualBytes.count)
        let offset = (0..<common).first { expectedBytes[$0] != actualBytes[$0] } ?? common
        func snippet(_ bytes: [UInt8]) -> String {
            let start = max(0, offset - 40)
            let end = min(bytes.count, offset + 60)
            guard start < end else { return "(ends here)" }
            // As the bytes read, but for characters that would not show (written \u{…}).
            var text = ""
            for scalar in String(decoding: bytes[start..<end], as: UTF8.self).unicodeScalars {
                switch scalar.properties.generalCategory {
                case .control, .format, .lineSeparator, .paragraphSeparator:
                    text += "\\u{\(String(scalar.value, radix: 16))}"
                default:
                    text.unicodeScalars.append(scalar)
                }
            }
            return (start > 0 ? "…" : "") + "`" + text + "`" + (end < bytes.count ? "…" : "")
        }
        return """
            First difference at byte offset \(offset) (expected \(expectedBytes.count) bytes, got \(actualBytes.count)); \
            bytes \(max(0, offset - 40))..<\(offset + 60):
              expected: \(snippet(expectedBytes))
              actual:   \(snippet(actualBytes))
            """
    }
}

// MARK: - Decoding timelines again

/// Something done with the entry content type of one app's timelines, so that a test can decode
/// an `Encodable`-only timeline (``TimelineBody``, ``WidgetTimeline``) through its content type.
protocol TimelineContentVisitor {
    associatedtype Output
    func visit<Content: Codable & Sendable & Equatable>(_ wrap: @escaping (Timeline<Content>) -> WidgetTimeline) throws
        -> Output
}

extension WidgetApp {
    func visitTimelineContent<Visitor: TimelineContentVisitor>(_ visitor: Visitor) throws -> Visitor.Output {
        switch self {
        case .tensionCheck: try visitor.visit(WidgetTimeline.tensionCheck)
        case .diet: try visitor.visit(WidgetTimeline.diet)
        case .tenX: try visitor.visit(WidgetTimeline.tenX)
        case .stressMonitor: try visitor.visit(WidgetTimeline.stressMonitor)
        case .jitter: try visitor.visit(WidgetTimeline.jitter)
        }
    }
}

extension TimelineBody {
    /// The body a client decoded, as the server holds it.
    init<Content>(_ decoded: DecodedTimelineBody<Content>, _ wrap: (Timeline<Content>) -> WidgetTimeline) {
        self.init(
            kind: decoded.kind, user: decoded.user, stateVersion: decoded.stateVersion, metricsVersion: decoded.metricsVersion,
            profileVersion: decoded.profileVersion, timeZone: decoded.timeZone, generatedAt: decoded.generatedAt,
            timeline: wrap(Timeline(entries: decoded.entries, policy: decoded.policy)))
    }
}

extension Envelope {
    /// The same envelope around another body.
    func withBody<Other: Sendable>(_ body: Other) -> Envelope<Other> {
        Envelope<Other>(version: version, id: id, type: type, user: user, sentAt: sentAt, inReplyTo: inReplyTo, body: body)
    }
}
