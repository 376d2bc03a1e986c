import Foundation

/// A widget timeline as WidgetKit models it: what to show from which date, and when to ask again.
public struct Timeline<Content: Sendable & Equatable>: Sendable, Equatable {
    public var entries: [TimelineEntry<Content>]
    public var policy: ReloadPolicy

    public init(entries: [TimelineEntry<Content>], policy: ReloadPolicy) {
        self.entries = entries
        self.policy = policy
    }

    /// When the timeline runs out and the widget asks for a new one: the `after` date, the last
    /// entry's date for `atEnd`, nil for `never`. Whoever keeps a timeline for a widget (a
    /// snapshot file) must have a new one ready by then.
    public var reloadDate: Date? {
        switch policy {
        case .after(let date): date
        case .atEnd: entries.last?.date
        case .never: nil
        }
    }
}

extension Timeline: Codable where Content: Codable {}

/// One entry: from `date` on, the widget shows `content`.
///
/// Encoded flat — `{"date": …, <content's own fields>}` — so a client reads an entry the way
/// WidgetKit hands one to a view.
public struct TimelineEntry<Content: Sendable & Equatable>: Sendable, Equatable {
    public var date: Date
    public var content: Content

    public init(date: Date, content: Content) {
        self.date = date
        self.content = content
    }
}

extension TimelineEntry: Codable where Content: Codable {
    private enum CodingKeys: String, CodingKey { case date }

    public init(from decoder: any Decoder) throws {
        date = try decoder.container(keyedBy: CodingKeys.self).decode(Date.self, forKey: .date)
        content = try Content(from: decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        try content.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(date, forKey: .date)
    }
}

/// WidgetKit's `TimelineReloadPolicy`: the *earliest* date the widget wants a new timeline.
public enum ReloadPolicy: Sendable, Equatable, Codable {
    /// Ask again after the last entry's date.
    case atEnd
    /// Ask again at (not before) this date.
    case after(Date)
    /// Only an explicit reload produces a new timeline.
    case never

    private enum CodingKeys: String, CodingKey { case type, date }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        switch try container.decode(String.self, forKey: .type) {
        case "atEnd": self = .atEnd
        case "never": self = .never
        case "after": self = .after(try container.decode(Date.self, forKey: .date))
        case let other:
            throw DecodingError.dataCorruptedError(
                forKey: .type, in: container, debugDescription: "unknown reload policy \(other)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .atEnd: try container.encode("atEnd", forKey: .type)
        case .never: try container.encode("never", forKey: .type)
        case .after(let date):
            try container.encode("after", forKey: .type)
            try container.encode(date, forKey: .date)
        }
    }
}
