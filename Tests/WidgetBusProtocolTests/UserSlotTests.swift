import Testing
import WidgetBusProtocol

/// A user's slot is part of the protocol: every client and shard must compute the same one.
@Suite struct UserSlotTests {
    /// 32-bit FNV-1a of the UTF-8 bytes, modulo 256 (docs/PROTOCOL.md): "a" hashes to 0xE40C292C,
    /// FNV's published test vector.
    @Test(arguments: [("a", 44), ("alice", 231), ("bob", 212), ("user-0", 7), ("ü", 74), ("", 197)])
    func theSlotIsFNV1aOfTheUTF8BytesModulo256(_ user: String, _ slot: Int) {
        #expect(UserSlot(user: user).index == slot)
    }

    @Test func usersSpreadOverEverySlot() {
        var counts = [Int](repeating: 0, count: UserSlot.count)
        for user in (0..<25_600).map({ "user-\($0)" }) { counts[UserSlot(user: user).index] += 1 }
        #expect(counts.min()! > 50 && counts.max()! < 150, "between \(counts.min()!) and \(counts.max()!) users per slot")
    }
}
