import Foundation
import Testing

@testable import BusRuntime

/// When a paced socket rests, as a value: dates in, rests out.
@Suite struct SocketPacingTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func aTakeOfRequestsIsFollowedByARestOfTheIntervalUnlessItTookEnough() {
        var pacing = SocketPacing(0.001, batch: 64, answersRequests: true)
        pacing.took(3, at: start)
        #expect(pacing.restEnd(at: start) == start.addingTimeInterval(0.001))
        #expect(pacing.restEnd(at: start.addingTimeInterval(0.0005)) == start.addingTimeInterval(0.001))
        #expect(pacing.restEnd(at: start.addingTimeInterval(0.001)) == nil, "the rest is over at its end")

        pacing.took(SocketPacing.enoughRequests, at: start.addingTimeInterval(0.001))
        #expect(pacing.restEnd(at: start.addingTimeInterval(0.001)) == nil, "that turn's cost is already shared")

        var small = SocketPacing(0.001, batch: 3, answersRequests: true)
        small.took(3, at: start)
        #expect(small.restEnd(at: start) == nil, "a full batch: more is already waiting")
    }

    @Test func aTakeOfEventsIsFollowedByARestUnlessItFilledTheBatch() {
        var pacing = SocketPacing(0.01, batch: 256, answersRequests: false)
        pacing.took(255, at: start)
        #expect(pacing.restEnd(at: start) == start.addingTimeInterval(0.01), "no publisher waits for this follower")
        pacing.took(256, at: start.addingTimeInterval(0.01))
        #expect(pacing.restEnd(at: start.addingTimeInterval(0.01)) == nil, "a full batch: more is already waiting")
    }

    @Test func restsThatGatherSeveralMessagesGoOn() {
        var pacing = SocketPacing(0.001, batch: 64, answersRequests: true)
        var now = start
        for _ in 0..<1_000 {
            pacing.took(2, at: now)
            #expect(pacing.restEnd(at: now) != nil)
            now = now.addingTimeInterval(0.001)
        }
    }

    @Test func aOneAtATimeClientStopsTheRestsForAThousandIntervalsThenTheyAreTriedAgain() {
        var pacing = SocketPacing(0.001, batch: 64, answersRequests: true)
        var now = start
        var rests = 0
        // Each rest gathers the one request its client sent after the reply.
        while rests < 100 {
            pacing.took(1, at: now)
            guard pacing.restEnd(at: now) != nil else { break }
            rests += 1
            now = now.addingTimeInterval(0.001)
        }
        #expect(rests == SocketPacing.unpaidRestsBeforePause, "eight rests in a row gathered one message each")

        now = now.addingTimeInterval(0.0001)
        pacing.took(1, at: now)
        #expect(pacing.restEnd(at: now) == nil, "paused")
        now = now.addingTimeInterval(0.999)
        pacing.took(1, at: now)
        #expect(pacing.restEnd(at: now) == nil, "still paused just before 1,000 intervals")
        now = now.addingTimeInterval(0.002)
        pacing.took(1, at: now)
        #expect(pacing.restEnd(at: now) == now.addingTimeInterval(0.001), "tried again")
    }

    @Test func aRestThatGathersSeveralAmongUnpaidOnesKeepsTheRestsGoing() {
        var pacing = SocketPacing(0.001, batch: 64, answersRequests: true)
        var now = start
        pacing.took(1, at: now)
        for gathered in [1, 1, 1, 1, 1, 1, 1, 2, 1, 1, 1, 1, 1, 1, 1] {
            now = now.addingTimeInterval(0.001)
            pacing.took(gathered, at: now)
            #expect(pacing.restEnd(at: now) != nil, "never eight unpaid rests in a row")
        }
        now = now.addingTimeInterval(0.001)
        pacing.took(1, at: now)
        #expect(pacing.restEnd(at: now) == nil, "the eighth in a row")
    }

    @Test func aRestOrPauseEndingFurtherAwayThanTwiceItsLengthIsOneTheClockSteppedBackAcross() {
        var pacing = SocketPacing(0.001, batch: 64, answersRequests: true)
        pacing.took(1, at: start)
        #expect(pacing.restEnd(at: start.addingTimeInterval(-3600)) == nil)

        var now = start
        for _ in 0..<SocketPacing.unpaidRestsBeforePause {
            now = now.addingTimeInterval(0.001)
            pacing.took(1, at: now)
        }
        #expect(pacing.restEnd(at: now) == nil, "paused")
        let stepped = now.addingTimeInterval(-3600)
        pacing.took(1, at: stepped)
        #expect(pacing.restEnd(at: stepped) != nil, "a pause of an hour and more is over")
    }
}
