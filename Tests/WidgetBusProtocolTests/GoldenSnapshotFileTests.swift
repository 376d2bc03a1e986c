import Foundation
import Testing
import WidgetBusProtocol
import WidgetDomain

/// The bytes of the snapshot file (``WidgetSnapshot``, made from the encoded `TimelineBody` as
/// snapshot-writer makes it) of every widget kind, pinned in `Tests/Golden/WidgetBusProtocolTests/`.
/// The timelines are the ones WidgetBusProtocolTests pins as `TimelineBody` (the same
/// ``TimelineSpec``s, built by `WidgetState.timeline(for:now:timeZone:metrics:)` from the shared
/// ``GoldenFixtures``).
/// Record again with `WIDGETBUS_RECORD_GOLDEN=1 swift test --filter Golden`.
@Suite("Golden snapshot files")
struct GoldenSnapshotFileTests {
    static let golden = GoldenFiles(forTestFile: #filePath)

    /// The widgets snapshot-writer keeps a file for.
    static let specs = TimelineSpec.all.filter(\.hasSnapshotFile)

    static func name(_ spec: TimelineSpec) -> String { "WidgetSnapshot-\(spec.name)" }

    @Test("A snapshot file encodes to its golden bytes, which decode and encode again unchanged", arguments: specs)
    func snapshotFile(_ spec: TimelineSpec) throws {
        let codec = WireCodec()
        let name = Self.name(spec)
        let body = try spec.body()
        let snapshot = try #require(WidgetSnapshot(timelineBody: JSONFieldScanner(try codec.encode(body))))
        let data = try snapshot.encoded(with: codec)
        try Self.golden.check(data, name)

        let stored = Self.golden.stored(name) ?? data
        let header = try codec.decode(WidgetSnapshot.Header.self, from: stored)
        #expect(header == snapshot.header)
        #expect(header.validUntil == body.validUntil.map { codec.roundTrip($0) })
        let decoded = try header.stamp.kind.app.visitTimelineContent(SnapshotFileDecoding(header: header, data: stored, codec: codec))
        let again = try #require(WidgetSnapshot(timelineBody: JSONFieldScanner(try codec.encode(decoded))))
        Self.golden.expectRoundTrip(stored, try again.encoded(with: codec), name)
    }

    @Test func everyWidgetKindHasASnapshotFileInBothZones() {
        for kind in WidgetKind.allCases {
            for zone in GoldenFixtures.zones {
                #expect(Self.specs.contains(TimelineSpec(kind: kind, variant: .current, zone: zone)))
            }
        }
    }
}

/// A snapshot file read back as the timeline body it was made from: its stamp, `generatedAt` and
/// timeline, through the kind's content type.
private struct SnapshotFileDecoding: TimelineContentVisitor {
    struct File<Content: Codable & Sendable & Equatable>: Decodable {
        var generatedAt: Date
        var timeline: Timeline<Content>
    }

    var header: WidgetSnapshot.Header
    var data: Data
    var codec: WireCodec

    func visit<Content: Codable & Sendable & Equatable>(_ wrap: @escaping (Timeline<Content>) -> WidgetTimeline) throws
        -> TimelineBody
    {
        let file = try codec.decode(File<Content>.self, from: data)
        let stamp = header.stamp
        #expect(stamp.schemaVersion == WidgetSnapshot.schemaVersion)
        return TimelineBody(
            kind: stamp.kind, user: stamp.user, stateVersion: stamp.stateVersion, metricsVersion: stamp.metricsVersion,
            timeZone: stamp.timeZone, generatedAt: file.generatedAt, timeline: wrap(file.timeline))
    }
}

extension WireCodec {
    /// `date` as it reads back from the wire (rounded to the millisecond).
    fileprivate func roundTrip(_ date: Date) -> Date {
        WireDate.parse(WireDate.format(date))!
    }
}
