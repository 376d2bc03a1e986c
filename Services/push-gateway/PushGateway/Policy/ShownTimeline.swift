import Crypto
import Foundation
import WidgetBusProtocol

/// What a widget shows over time once a device has a timeline: from each entry's date on, that
/// entry's content, until the device reloads the widget by itself at `reloadDate`. Contents are
/// kept as digests of their encoded fields, so a change is found without decoding an entry and a
/// widget's last timeline costs a few bytes per entry to remember.
public struct ShownTimeline: Codable, Sendable, Equatable {
    public struct Entry: Codable, Sendable, Equatable {
        public var date: Date
        /// The first 8 bytes of the SHA-256 of the entry's fields but its ``clockFields``.
        public var content: UInt64

        public init(date: Date, content: UInt64) {
            self.date = date
            self.content = content
        }
    }

    /// When timeline-service built the timeline: its `now`.
    public var generatedAt: Date
    /// In date order.
    public var entries: [Entry]
    /// When WidgetKit asks for a new timeline by itself (the policy's date; nil: never).
    public var reloadDate: Date?

    public init(generatedAt: Date, entries: [Entry], reloadDate: Date?) {
        self.generatedAt = generatedAt
        self.entries = entries.sorted { $0.date < $1.date }
        self.reloadDate = reloadDate
    }

    /// The entry fields that follow from when the timeline was built, not from the user's data:
    /// the entry's own `date`, TenX's `generatedAt` and a Jitter drink's `elapsed` and
    /// `elapsedSeconds` (which its `sessionStartTime` and the entry's date already say). Two
    /// builds of the same data differ in them alone, so they are not content.
    public static let clockFields = ["date", "generatedAt", "elapsed", "elapsedSeconds"]

    /// Reads a `TimelineBody` as timeline-service encoded it (PROTOCOL §7.6); nil when it is not one.
    public init?(timelineBody body: JSONFieldScanner) {
        guard let generatedAt = body.date("generatedAt"), let entries = body.objects(inArray: "entries") else { return nil }
        var shown: [Entry] = []
        shown.reserveCapacity(entries.count)
        for entry in entries {
            guard let date = entry.date("date") else { return nil }
            shown.append(Entry(date: date, content: Self.digest(entry.encodedFields(excluding: Self.clockFields))))
        }
        self.init(generatedAt: generatedAt, entries: shown, reloadDate: body.date("validUntil"))
    }

    /// Whether `newer` shows something else than this timeline at any moment from when it was
    /// built until this one's reload date: what a push would change on a device that holds this
    /// one, before the device reloads by itself. A timeline built again with the same content (a
    /// refresh, or a change to something the widget does not show) changes nothing, however its
    /// entry dates moved; a timeline built at or after this one's reload date changes nothing a
    /// push could bring sooner.
    public func showsOtherContent(than newer: ShownTimeline) -> Bool {
        let start = newer.generatedAt
        let end = reloadDate ?? .distantFuture
        guard start < end else { return false }
        // What each shows is constant between entry dates: comparing at every one of them (and
        // at the start) compares all of the time between.
        let moments = [start] + (entries + newer.entries).map(\.date).filter { $0 > start && $0 < end }
        return moments.contains { content(at: $0) != newer.content(at: $0) }
    }

    /// The content shown at `date`: the last entry dated at or before it (nil before the first).
    func content(at date: Date) -> UInt64? {
        var low = 0
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].date <= date { low = middle + 1 } else { high = middle }
        }
        return low == 0 ? nil : entries[low - 1].content
    }

    static func digest(_ fields: [(key: ArraySlice<UInt8>, value: ArraySlice<UInt8>)]) -> UInt64 {
        var hash = SHA256()
        for field in fields {
            hash.update(data: field.key)
            hash.update(data: [0])  // a key and its value cannot run into each other
            hash.update(data: field.value)
            hash.update(data: [0])
        }
        return hash.finalize().withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
    }
}
