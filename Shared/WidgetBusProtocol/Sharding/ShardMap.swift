/// Where a client sends each user's requests when intent-handler may run as shards: to the
/// intents endpoint it was given, until a `wrong_shard` reply names the owner of a user's slot;
/// from then on that slot's requests go to the owner (as a Redis Cluster client keeps its slot
/// table from `MOVED` replies). A map learns one slot at a time and needs no list of shards:
/// any shard redirects to the right one.
public struct ShardMap: Sendable {
    /// What to do with a request answered `wrong_shard`.
    public enum Resend: Equatable, Sendable {
        /// To the owner's endpoint, now.
        case to(String)
        /// The slot is moving between shards: after a moment, to the default endpoint (the map
        /// forgets the slot's owner), which redirects again once the slot has one.
        case afterPause
    }

    /// Where requests go for slots not learned.
    public let defaultEndpoint: String
    private var owners: [Int: String] = [:]

    public init(defaultEndpoint: String) {
        self.defaultEndpoint = defaultEndpoint
    }

    /// The endpoint for `user`'s requests (the default one for a request without a user).
    public func endpoint(for user: String?) -> String {
        user.flatMap { owners[UserSlot(user: $0).index] } ?? defaultEndpoint
    }

    /// Takes in what a `wrong_shard` reply said of a slot, and says where to resend.
    public mutating func learn(_ redirect: ShardRedirect) -> Resend {
        guard let endpoint = redirect.endpoint else {
            owners[redirect.slot] = nil
            return .afterPause
        }
        owners[redirect.slot] = endpoint
        return .to(endpoint)
    }

    /// Slots learned, and their owners' endpoints.
    public var learned: [Int: String] { owners }
}
