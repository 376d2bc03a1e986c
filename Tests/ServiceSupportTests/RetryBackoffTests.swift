import Foundation
import Testing

import ServiceSupport

/// The retry delay after failures in a row: exponential, capped, with full jitter.
@Suite struct RetryBackoffTests {
    let backoff = RetryBackoff(base: .seconds(2), cap: .seconds(60))

    @Test func theCeilingDoublesWithEachFailureUpToTheCap() {
        let ceilings = (1...8).map { backoff.delay(afterFailures: $0, unit: 1) }
        #expect(ceilings == [2, 4, 8, 16, 32, 60, 60, 60].map { Duration.seconds($0) })
    }

    @Test func theDelayIsDrawnFromZeroToTheCeiling() {
        #expect(backoff.delay(afterFailures: 3, unit: 0) == .zero)
        #expect(backoff.delay(afterFailures: 3, unit: 0.5) == .seconds(4))
        let drawn = (0..<200).map { _ in backoff.delay(afterFailures: 3) }
        #expect(drawn.allSatisfy { $0 >= .zero && $0 <= .seconds(8) })
        #expect(Set(drawn).count > 1, "users failing together come back at different instants")
    }

    @Test func aCountBeyondAnyDoublingStaysAtTheCap() {
        #expect(backoff.delay(afterFailures: 10_000, unit: 1) == .seconds(60))
        #expect(backoff.delay(afterFailures: 0, unit: 1) == .seconds(2), "a count below one counts as one")
    }
}
