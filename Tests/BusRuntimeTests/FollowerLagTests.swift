import Foundation
import Testing
import WidgetBusProtocol

@testable import BusRuntime

/// How far behind a publisher's followers are, as a value: publishing moments and heartbeats in,
/// lags out.
@Suite struct FollowerLagTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    func at(_ seconds: TimeInterval) -> Date { start.addingTimeInterval(seconds) }

    /// A heartbeat of `follower` saying it applied `publisher`'s stream up to `sequence` in `epoch`.
    func beat(_ follower: String = "timeline-service", at sequence: UInt64, epoch: String = "e1", publisher: String = "intent-handler")
        -> HeartbeatBody
    {
        HeartbeatBody(
            publisher: follower, epoch: "f1", sequence: 7,
            follows: [
                FollowedPosition(publisher: "metrics-ingest", epoch: "m1", sequence: 1),
                FollowedPosition(publisher: publisher, epoch: epoch, sequence: sequence),
            ])
    }

    func lag(longest: TimeInterval = 1, fewestEventsBehind: UInt64 = 1, lastSequence: UInt64 = 10) -> FollowerLag {
        FollowerLag(
            publisher: "intent-handler", epoch: "e1", lastSequence: lastSequence, longestLag: longest, fewestEventsBehind: fewestEventsBehind,
            silence: 2)
    }

    @Test func aFollowerIsAsFarBehindAsTheOldestEventItHasNotAppliedHasBeenOut() {
        var lag = lag()
        lag.published(through: 12, at: at(0))
        lag.published(through: 15, at: at(0.3))
        lag.published(through: 20, at: at(0.5))

        lag.heard(beat(at: 10), at: at(0.6))
        #expect(lag.lag(of: "timeline-service", at: at(0.6))?.isApproximately(0.6) == true, "11 went out at 0")
        lag.heard(beat(at: 12), at: at(0.7))
        #expect(lag.lag(of: "timeline-service", at: at(0.7))?.isApproximately(0.4) == true, "13 went out at 0.3")
        lag.heard(beat(at: 14), at: at(0.8))
        #expect(lag.lag(of: "timeline-service", at: at(0.8))?.isApproximately(0.5) == true, "15 went out with 13, at 0.3")
        lag.heard(beat(at: 20), at: at(0.9))
        #expect(lag.lag(of: "timeline-service", at: at(0.9)) == 0, "caught up")
        #expect(lag.lag(of: "timeline-service", at: at(1.5)) == 0, "and nothing was published since")
    }

    @Test func betweenReportsAFollowerCountsAsNotHavingMoved() {
        var lag = lag()
        lag.heard(beat(at: 10), at: at(0))
        lag.published(through: 11, at: at(0.05))
        #expect(lag.lag(of: "timeline-service", at: at(0.09))?.isApproximately(0.04) == true)
        #expect(lag.tooFarBehind(at: at(1.0)) == nil, "0.95 s is within the longest lag")
        let behind = lag.tooFarBehind(at: at(1.1))
        #expect(behind?.follower == "timeline-service")
        #expect(behind?.lag.isApproximately(1.05) == true)
        lag.heard(beat(at: 11), at: at(1.2))
        #expect(lag.tooFarBehind(at: at(1.2)) == nil, "its report that it applied 11 ends the hold")
    }

    @Test func aFollowerUnheardForItsSilenceOrFollowingAnotherEpochIsNotWaitedFor() {
        var lag = lag()
        lag.heard(beat(at: 10), at: at(0))
        lag.published(through: 11, at: at(0))
        #expect(lag.tooFarBehind(at: at(1.5)) != nil)
        #expect(lag.tooFarBehind(at: at(2.1)) == nil, "unheard for more than 2 s: taken as gone")

        lag.heard(beat(at: 10, epoch: "e0"), at: at(2.2))
        #expect(lag.lag(of: "timeline-service", at: at(2.2)) == nil, "synced with the publisher's previous start: its re-sync catches it up")
        lag.heard(beat(at: 10, publisher: "sync-agent"), at: at(2.3))
        #expect(lag.lag(of: "timeline-service", at: at(2.3)) == nil, "follows another publisher only")
        lag.heard(HeartbeatBody(publisher: "timeline-service", epoch: "f1", sequence: 7), at: at(2.4))
        #expect(lag.tooFarBehind(at: at(2.4)) == nil, "a heartbeat without positions: not synced with anything")
    }

    @Test func aFollowerIsTooFarBehindOnlyWhenItIsAlsoEnoughEventsBehind() {
        var lag = lag(fewestEventsBehind: 3)
        lag.published(through: 12, at: at(0))
        lag.heard(beat(at: 10), at: at(1.5))
        #expect(lag.tooFarBehind(at: at(1.5)) == nil, "1.5 s but 2 events behind: a stall at a trickle")
        lag.published(through: 13, at: at(1.5))
        let behind = lag.tooFarBehind(at: at(1.5))
        #expect(behind?.lag == 1.5 && behind?.events == 3, "3 events behind as well")
    }

    @Test func theFollowerFurthestBehindIsTheOneThatHolds() {
        var lag = lag()
        lag.published(through: 11, at: at(0))
        lag.published(through: 12, at: at(1))
        lag.heard(beat("push-gateway", at: 11), at: at(2.5))
        lag.heard(beat("timeline-service", at: 10), at: at(2.5))
        let behind = lag.tooFarBehind(at: at(2.5))
        #expect(behind?.follower == "timeline-service")
        #expect(behind?.lag.isApproximately(2.5) == true)
    }

    @Test func aFollowerBehindEveryMomentKeptIsTooFarBehindHoweverYoungTheOldestIs() {
        var lag = lag(longest: 60)
        let moments = FollowerLag.mostMoments + 10
        for index in 0..<moments { lag.published(through: UInt64(10 + index + 1), at: at(Double(index) / 10_000)) }
        lag.heard(beat(at: 10), at: at(7))
        let behind = lag.tooFarBehind(at: at(7))
        #expect(behind?.follower == "timeline-service", "its next event went out before the oldest moment kept")
        #expect((behind?.lag ?? 60) < 60, "the oldest kept is younger than the longest lag")
        lag.heard(beat(at: UInt64(10 + moments - 5)), at: at(7))
        #expect(lag.tooFarBehind(at: at(7)) == nil, "5 events behind, 0.45 s: within")
    }

    @Test func momentsOlderThanTheLongestLagAreLetGoWithoutChangingTheVerdict() {
        var lag = lag(longest: 1)
        for second in 0..<100 { lag.published(through: UInt64(11 + second), at: at(Double(second))) }
        lag.heard(beat(at: 10), at: at(99.5))
        let behind = lag.tooFarBehind(at: at(99.5))
        #expect(behind != nil, "far behind, whatever its exact lag")
        #expect((behind?.lag ?? 0) > 1)
        lag.heard(beat(at: 109), at: at(99.5))
        #expect(lag.lag(of: "timeline-service", at: at(99.5))?.isApproximately(0.5) == true, "110 went out at 99")
    }
}

extension TimeInterval {
    fileprivate func isApproximately(_ other: TimeInterval) -> Bool { abs(self - other) < 1e-6 }
}
