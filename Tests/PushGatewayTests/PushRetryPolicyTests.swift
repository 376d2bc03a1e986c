import Foundation
import PushGateway
import Testing

/// How long a push that was not delivered waits, with the random parts the test chooses.
@Suite("The wait before a retry")
struct PushRetryPolicyTests {
    let policy = PushRetryPolicy()

    @Test("a Retry-After of 0 waits 1 to 2 s, at any count of failures")
    func retryAfterZeroIsFloored() {
        for failures in 1...3 {
            #expect(policy.delay(afterFailures: failures, retryAfter: 0, floorUnit: 0, backoffUnit: 0) == 1)
            #expect(policy.delay(afterFailures: failures, retryAfter: 0, floorUnit: 1, backoffUnit: 0) == 2)
            #expect(policy.delay(afterFailures: failures, retryAfter: 0, floorUnit: 0.5, backoffUnit: 1) == 1.5, "the backoff waits for the fourth")
        }
    }

    @Test("the first three failures in a row wait what Retry-After says; from the fourth on, the backoff too")
    func retryAfterIsFollowedThreeTimesThenTheBackoffJoins() {
        for failures in 1...3 {
            #expect(policy.delay(afterFailures: failures, retryAfter: 3, floorUnit: 0, backoffUnit: 1) == 3)
        }
        #expect(policy.delay(afterFailures: 4, retryAfter: 0, floorUnit: 0, backoffUnit: 1) == 8, "1 s doubled three times")
        #expect(policy.delay(afterFailures: 4, retryAfter: 30, floorUnit: 0, backoffUnit: 1) == 30, "never sooner than APNs said")
        #expect(policy.delay(afterFailures: 12, retryAfter: 0, floorUnit: 0, backoffUnit: 1) == 300, "at most 5 minutes")
        #expect(policy.delay(afterFailures: 12, retryAfter: 0, floorUnit: 0, backoffUnit: 0) == 1, "full jitter, but at least the floor")
    }

    @Test("without Retry-After, the backoff from the first failure on, floored")
    func withoutRetryAfterTheBackoff() {
        #expect(policy.delay(afterFailures: 1, retryAfter: nil, floorUnit: 0, backoffUnit: 1) == 1)
        #expect(policy.delay(afterFailures: 1, retryAfter: nil, floorUnit: 0.25, backoffUnit: 0) == 1.25)
        #expect(policy.delay(afterFailures: 3, retryAfter: nil, floorUnit: 0, backoffUnit: 1) == 4)
    }
}
