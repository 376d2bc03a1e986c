import Foundation
import Testing
@testable import WidgetDomain

@Suite("ReduceContext and random sources")
struct ReduceContextTests {
    static var uuidV4: Regex<Substring> { /[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}/ }

    @Test("makeID is a lowercase version-4 UUID", arguments: [UInt64(0), 1, 42, .max])
    func makeIDFormat(seed: UInt64) throws {
        var context = Fixture.context(seed: seed)
        for _ in 0..<500 {
            let id = context.makeID()
            #expect(id.wholeMatch(of: Self.uuidV4) != nil, "\(id)")
            let uuid = try #require(UUID(uuidString: id))
            #expect(uuid.uuidString.lowercased() == id)
        }
    }

    @Test func makeIDIsDeterministicForTheSameSeed() {
        var first = Fixture.context(seed: 1234)
        var second = Fixture.context(seed: 1234)
        let a = (0..<50).map { _ in first.makeID() }
        let b = (0..<50).map { _ in second.makeID() }
        #expect(a == b)
        #expect(Set(a).count == 50)
    }

    @Test func makeIDDiffersAcrossSeeds() {
        var first = Fixture.context(seed: 1)
        var second = Fixture.context(seed: 2)
        #expect(first.makeID() != second.makeID())
    }

    @Test func makeIDIsPinnedForSeedZero() {
        // Seed 0 yields 0xE220A8397B1DCDAF then 0x6E789E6AA1B965F4; the UUID is their bytes in memory
        // order with the version and variant bits set. Pinned so stored ids stay reproducible.
        var context = Fixture.context(seed: 0)
        #expect(context.makeID() == "afcd1d7b-39a8-40e2-b465-b9a16a9e786e")
    }

    @Test func randomUUIDWritesWhatFoundationWritesForTheSameBytes() {
        var random = SeededRandom(seed: 99)
        var replay = SeededRandom(seed: 99)
        for _ in 0..<2_000 {
            var bytes = (replay.next().littleEndian, replay.next().littleEndian)
            let expected = withUnsafeMutableBytes(of: &bytes) { raw in
                raw[6] = (raw[6] & 0x0F) | 0x40
                raw[8] = (raw[8] & 0x3F) | 0x80
                return UUID(uuid: raw.load(as: uuid_t.self)).uuidString.lowercased()
            }
            #expect(RandomUUID.string(using: &random) == expected)
        }
    }

    @Test func makeIDIgnoresClockAndZone() {
        var first = ReduceContext(now: .distantPast, timeZone: .gmt, random: RandomSource(SeededRandom(seed: 3)))
        var second = ReduceContext(
            now: .distantFuture, timeZone: TimeZone(identifier: "Asia/Tokyo")!, random: RandomSource(SeededRandom(seed: 3)))
        #expect(first.makeID() == second.makeID())
    }

    @Test func seededRandomIsSplitMix64() {
        var random = SeededRandom(seed: 0)
        #expect(random.next() == 0xE220_A839_7B1D_CDAF)
        #expect(random.next() == 0x6E78_9E6A_A1B9_65F4)
        #expect(random.next() == 0x06C4_5D18_8009_454F)
    }

    @Test func seededRandomReplaysItsSequence() {
        var first = SeededRandom(seed: 77)
        var second = SeededRandom(seed: 77)
        #expect((0..<100).map { _ in first.next() } == (0..<100).map { _ in second.next() })
    }

    @Test func randomSourceForwardsToItsBase() {
        var direct = SeededRandom(seed: 5)
        var erased = RandomSource(SeededRandom(seed: 5))
        #expect((0..<10).map { _ in direct.next() } == (0..<10).map { _ in erased.next() })
    }

    @Test func contextCopiesAreIndependent() {
        var original = Fixture.context(seed: 9)
        var copy = original
        let fromCopy = copy.makeID()
        #expect(original.makeID() == fromCopy)
    }

    @Test func contextKeepsItsInputs() {
        let context = Fixture.context()
        #expect(context.now == Fixture.now)
        #expect(context.timeZone.identifier == "Europe/Berlin")
    }
}
