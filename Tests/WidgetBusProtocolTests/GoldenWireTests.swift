import Foundation
import Testing
import WidgetBusProtocol
import WidgetDomain

/// The encoded bytes of every message type and of every widget kind's timeline, pinned in
/// `Tests/Golden/WidgetBusProtocolTests/`: an encoder that writes other bytes for the same values
/// fails here, naming the first differing byte. Record the files again (only when a change of the
/// bytes is intended) with `WIDGETBUS_RECORD_GOLDEN=1 swift test --filter Golden`.
///
/// The values are ``GoldenFixtures`` and the messages ``GoldenWireCase/all`` (both shared with
/// ServiceSupportTests, which checks that the services' reply helpers send these bytes; the
/// snapshot files are pinned here by ``GoldenSnapshotFileTests``); each golden also decodes and
/// encodes again to the same bytes.
@Suite("Golden wire bytes")
struct GoldenWireTests {
    static let golden = GoldenFiles(forTestFile: #filePath)

    @Test("A message encodes to its golden bytes, which decode and encode again unchanged", arguments: GoldenWireCase.all)
    func message(_ golden: GoldenWireCase) throws {
        let codec = WireCodec()
        let data = try golden.encode(codec)
        try Self.golden.check(data, golden.name)
        let stored = Self.golden.stored(golden.name) ?? data
        Self.golden.expectRoundTrip(stored, try golden.reencode(codec, stored), golden.name)
    }

    @Test("A request golden is a request the services accept", arguments: GoldenWireCase.all.filter { $0.role == .request })
    func requestIsAccepted(_ golden: GoldenWireCase) throws {
        let codec = WireCodec()
        let data = try golden.encode(codec)
        switch golden.type {
        case .metricSample, .metricBatch:
            #expect(try MetricsPush.decode(data, codec: codec).type == golden.type)
        case .metricsStatusRequest:
            #expect(try MetricsRequest.decode(data, codec: codec).type == golden.type)
        default:
            #expect(try Request.decode(data, codec: codec).type == golden.type)
        }
    }

    @Test("A timeline encodes to its golden bytes, which decode and encode again unchanged", arguments: TimelineSpec.all)
    func timeline(_ spec: TimelineSpec) throws {
        let codec = WireCodec()
        let name = "TimelineBody-\(spec.name)"
        let data = try codec.encode(try spec.body())
        try Self.golden.check(data, name)
        let stored = Self.golden.stored(name) ?? data
        let reencoded = try spec.kind.app.visitTimelineContent(TimelineReencoding(shape: .body, data: stored, codec: codec))
        Self.golden.expectRoundTrip(stored, reencoded, name)
    }

    // MARK: Coverage

    @Test func everyMessageTypeHasAGolden() {
        let covered = Set(GoldenWireCase.all.map(\.type))
        let missing = MessageType.allCases.filter { !covered.contains($0) }
        #expect(missing.isEmpty, "message types without a golden: \(missing.map(\.rawValue))")
    }

    @Test func everyStateChangedAppAndWidgetKindInBothZonesHasAGolden() {
        let names = Set(GoldenWireCase.all.map(\.name))
        for app in WidgetApp.allCases {
            #expect(names.contains("StateChanged-\(app.rawValue)"))
            #expect(names.contains("StateReply-\(app.rawValue)"))
        }
        for kind in WidgetKind.allCases {
            for zone in GoldenFixtures.zones {
                #expect(TimelineSpec.all.contains(TimelineSpec(kind: kind, variant: .current, zone: zone)))
            }
        }
    }

    @Test func everyGoldenFileBelongsToATestAndNamesAreUnique() throws {
        let names =
            GoldenWireCase.all.map(\.name) + TimelineSpec.all.map { "TimelineBody-\($0.name)" }
            + GoldenSnapshotFileTests.specs.map(GoldenSnapshotFileTests.name)
        #expect(Set(names).count == names.count, "two goldens share a name")
        let stale = try Self.golden.storedNames().subtracting(names)
        #expect(stale.isEmpty, "golden files no test writes (delete them): \(stale.sorted())")
    }

    @Test func aDifferenceNamesTheFirstDifferingByte() throws {
        let report = try #require(GoldenFiles.difference(expected: Data(#"{"a":"b\n"}"#.utf8), actual: Data("{\"a\":\"c\u{7F}\"}".utf8)))
        #expect(report.contains("byte offset 6"))
        #expect(report.contains(#"expected: `{"a":"b\n"}`"#))
        #expect(report.contains(#"actual:   `{"a":"c\u{7f}"}`"#))
        let shorter = try #require(GoldenFiles.difference(expected: Data("abc".utf8), actual: Data("ab".utf8)))
        #expect(shorter.contains("byte offset 2 (expected 3 bytes, got 2)"))
        #expect(GoldenFiles.difference(expected: Data("abc".utf8), actual: Data("abc".utf8)) == nil)
    }
}
