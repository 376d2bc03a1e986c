import Foundation

/// A value from app-gateway, or from the cache when the gateway could not be reached.
public struct Fetched<Value: Sendable>: Sendable {
    public enum Source: Sendable, Equatable {
        /// The gateway sent it just now.
        case gateway
        /// The gateway answered `304`: the cached value is still the current one.
        case revalidated
        /// The gateway could not be reached; `age` is how long ago it last sent or confirmed it.
        case cache(age: Duration)
    }

    public var value: Value
    public var source: Source

    /// Whether this is a cached value the gateway did not confirm now.
    public var isCached: Bool {
        if case .cache = source { true } else { false }
    }
}

/// The last timeline and snapshot of each widget kind, for revalidation (`ETag`) and for a widget
/// that must show something while the gateway cannot be reached.
///
/// One file per kind and resource, written whole to a temporary file and renamed over the old one,
/// so the app and its widget extension can share the folder (an App Group container): a reader
/// sees the old file or the new one, never a mix.
struct ResponseCache: Sendable {
    struct Entry<Value: Codable>: Codable {
        /// The gateway's `ETag`, when it sent one.
        var etag: String?
        /// When the gateway last sent or confirmed the value.
        var confirmedAt: Date
        var value: Value
    }

    let directory: URL

    func read<Value: Codable>(_ name: String, as type: Value.Type = Value.self) -> Entry<Value>? {
        // An unreadable or foreign file is as good as none: the next answer replaces it.
        guard let data = try? Data(contentsOf: url(name)) else { return nil }
        return try? JSONDecoder.gateway.decode(Entry<Value>.self, from: data)
    }

    /// Keeps `entry` unless the file holds a value `keepsCurrent` prefers (the other process wrote
    /// a newer one meanwhile). Read and replace are not one step: two writers that race both
    /// leave a whole file, and the newer-value check keeps the loser's window to that instant.
    func write<Value: Codable>(_ entry: Entry<Value>, as name: String, unless keepsCurrent: (Value) -> Bool = { _ in false }) throws {
        if let current = read(name, as: Value.self), keepsCurrent(current.value) { return }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        #if os(iOS)
        // Readable by the widget while the phone is locked, once unlocked after a restart.
        let options: Data.WritingOptions = [.atomic, .completeFileProtectionUntilFirstUserAuthentication]
        #else
        let options: Data.WritingOptions = .atomic
        #endif
        try JSONEncoder.gateway.encode(entry).write(to: url(name), options: options)
    }

    func clear() throws {
        guard FileManager.default.fileExists(atPath: directory.path) else { return }
        try FileManager.default.removeItem(at: directory)
    }

    private func url(_ name: String) -> URL { directory.appendingPathComponent(name + ".json") }
}

extension JSONEncoder {
    static var gateway: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(MillisecondDates().encode(date))
        }
        return encoder
    }
}

extension JSONDecoder {
    static var gateway: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            try MillisecondDates().decode(decoder.singleValueContainer().decode(String.self))
        }
        return decoder
    }
}
