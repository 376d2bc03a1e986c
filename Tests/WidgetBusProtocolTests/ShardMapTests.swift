import Testing
import WidgetBusProtocol

/// A client's map of slots to shards, learned from `wrong_shard` replies.
@Suite struct ShardMapTests {
    @Test func aSlotGoesToTheShardARedirectNamedAndOtherSlotsToTheDefault() {
        var map = ShardMap(defaultEndpoint: "tcp://a:5560")
        #expect(map.endpoint(for: "alice") == "tcp://a:5560")
        let redirect = ShardRedirect(slot: UserSlot(user: "alice"), shard: "b", endpoint: "tcp://b:5560")
        #expect(map.learn(redirect) == .to("tcp://b:5560"))
        #expect(map.endpoint(for: "alice") == "tcp://b:5560")
        #expect(map.endpoint(for: "bob") == "tcp://a:5560", "bob is in another slot")
        #expect(map.endpoint(for: nil) == "tcp://a:5560")
    }

    @Test func aSlotMovingBetweenShardsIsForgottenAndResentAfterAPause() {
        var map = ShardMap(defaultEndpoint: "tcp://a:5560")
        _ = map.learn(ShardRedirect(slot: UserSlot(user: "alice"), shard: "b", endpoint: "tcp://b:5560"))
        #expect(map.learn(ShardRedirect(slot: UserSlot(user: "alice"), shard: nil, endpoint: nil)) == .afterPause)
        #expect(map.endpoint(for: "alice") == "tcp://a:5560")
        #expect(map.learned.isEmpty)
    }
}
