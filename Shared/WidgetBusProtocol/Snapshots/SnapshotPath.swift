import Foundation
import WidgetDomain

/// Where the snapshot file of one user's widget kind lives: `<root>/<user>/<WidgetKind>.json`.
///
/// The user id and the kind become path components, so a hostile one (`..`, `a/b`, NUL …) could
/// name a file outside the root. intent-handler refuses such user ids on the wire already; this
/// is the last guard before the file system, with the same rule
/// (``ProtocolLimits/validateUser(_:)``), so no path that skips the wire validation can leave
/// the root either.
public struct SnapshotPath: Hashable, Sendable, CustomStringConvertible {
    /// A user id or kind that cannot be a file name under the root.
    public struct Refused: Error, CustomStringConvertible {
        public let description: String
    }

    public let user: String
    public let kind: WidgetKind
    /// The root, kept as given: every path of a writer shares its storage, so a path held for
    /// each of many files costs no string of its own.
    private let root: String

    /// The folder of the user's snapshot files.
    public var directory: String { (root as NSString).appendingPathComponent(user) }
    public var file: String { (directory as NSString).appendingPathComponent(kind.rawValue + ".json") }

    public init(root: String, user: String, kind: WidgetKind) throws(Refused) {
        for (what, component) in [("user id", user), ("widget kind", kind.rawValue)] {
            do {
                try ProtocolLimits.validateUser(component)
            } catch {
                throw Refused(description: "\(what) \(component.debugDescription) refused as a snapshot path: \(error.message)")
            }
        }
        self.user = user
        self.kind = kind
        self.root = root
    }

    /// Paths are compared within one root: the user and kind tell them apart.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(user)
        hasher.combine(kind)
    }

    public var description: String { file }
}
