/// The slot a user belongs to. Users are spread over a fixed number of slots, and each slot is
/// owned by one intent-handler shard at a time (docs/SCALING.md), so finding a user's shard is
/// finding who owns the user's slot.
///
/// The slot is the 32-bit FNV-1a hash of the user id's UTF-8 bytes modulo ``count``: stable
/// across processes, machines and releases (Swift's `Hasher` is seeded per process), cheap, and
/// simple enough for any client to compute in a few lines. It is part of the protocol
/// (docs/PROTOCOL.md): changing it, or the count, moves users between shards.
public struct UserSlot: Hashable, Sendable, CustomStringConvertible {
    /// How many slots there are: more than shards will ever be, so that slots spread evenly
    /// over a few shards and move between them one at a time; few enough that a shard renews
    /// all its leases in one statement.
    public static let count = 256

    /// 0 ..< ``count``.
    public let index: Int

    public init(index: Int) {
        precondition((0..<Self.count).contains(index), "slot \(index) is not in 0..<\(Self.count)")
        self.index = index
    }

    public init(user: String) {
        var hash: UInt32 = 0x811C_9DC5
        for byte in user.utf8 {
            hash ^= UInt32(byte)
            hash &*= 0x0100_0193
        }
        self.init(index: Int(hash % UInt32(Self.count)))
    }

    public var description: String { "slot \(index)" }
}

/// Where a request belongs when it reached a shard that does not own its user's slot: carried
/// by a `wrong_shard` error, so the client resends there (as Redis Cluster's `MOVED`).
public struct ShardRedirect: Codable, Sendable, Equatable {
    /// The user's slot.
    public var slot: Int
    /// The shard that owns it, and the intents endpoint it serves; both absent while no shard
    /// holds the slot (it is moving): the client asks again shortly.
    public var shard: String?
    public var endpoint: String?

    public init(slot: UserSlot, shard: String?, endpoint: String?) {
        self.slot = slot.index
        self.shard = shard
        self.endpoint = endpoint
    }
}
