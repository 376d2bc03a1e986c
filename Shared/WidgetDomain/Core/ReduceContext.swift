import Foundation

/// Everything a reducer may read besides the state and the message: the clock, the user's
/// zone and a random source, all injected so every rule is deterministic under test.
public struct ReduceContext {
    public var now: Date
    public var timeZone: TimeZone
    public var random: RandomSource

    public init(now: Date, timeZone: TimeZone, random: RandomSource) {
        self.now = now
        self.timeZone = timeZone
        self.random = random
    }

    /// A version-4 UUID drawn from the injected random source, so generated ids are reproducible.
    public mutating func makeID() -> String {
        RandomUUID.string(using: &random)
    }
}

/// A type-erased random number generator, so a context can hold the system's in production and
/// a seeded one in tests.
public struct RandomSource: RandomNumberGenerator {
    private var base: any RandomNumberGenerator

    public init(_ base: some RandomNumberGenerator) {
        self.base = base
    }

    public static var system: RandomSource { RandomSource(SystemRandomNumberGenerator()) }

    public mutating func next() -> UInt64 {
        base.next()
    }
}

/// SplitMix64: a tiny, well-distributed seeded generator for reproducible runs and tests.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
