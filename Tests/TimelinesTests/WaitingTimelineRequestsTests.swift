import Foundation
import Testing
import WidgetBusProtocol
import WidgetDomain

@testable import Timelines

@Suite struct WaitingTimelineRequestsTests {
    static let start = Date(timeIntervalSince1970: 1_795_339_800)

    static func request(_ id: String, version: UInt64 = 1) -> TimelinesRequest {
        TimelinesRequest(
            id: id, type: .timelineRequest, user: "ann", sentAt: start, body: .timeline(kind: .jitter, minimumVersion: version))
    }

    @Test func requestsAreAnsweredWhenTheirVersionComesInArrivalOrderAndTheRestRunOutAfterTheWait() {
        var waiting = WaitingTimelineRequests()
        #expect(waiting.nextDeadline == nil)
        for (offset, version) in [7, 5, 9, 5].enumerated() {
            waiting.add(
                Self.request("r\(offset)", version: UInt64(version)), route: [], now: Self.start.addingTimeInterval(Double(offset) / 10))
        }
        #expect(waiting.nextDeadline == Self.start.addingTimeInterval(WaitingTimelineRequests.longestWait))

        // The replica reached version 6: the two that asked for 5 go, in the order they came.
        #expect(waiting.takeAnswerable { $0.request.minimumVersion! <= 6 }.map(\.request.id) == ["r1", "r3"])
        #expect(waiting.takeAnswerable { $0.request.minimumVersion! <= 6 }.isEmpty)

        // The first still waiting ran out at its own deadline, the other not yet.
        let firstDeadline = Self.start.addingTimeInterval(WaitingTimelineRequests.longestWait)
        #expect(waiting.takeExpired(at: firstDeadline.addingTimeInterval(-0.001)).isEmpty)
        #expect(waiting.takeExpired(at: firstDeadline).map(\.request.id) == ["r0"])
        #expect(waiting.nextDeadline == Self.start.addingTimeInterval(0.2 + WaitingTimelineRequests.longestWait))
        #expect(waiting.takeExpired(at: firstDeadline.addingTimeInterval(1)).map(\.request.id) == ["r2"])
        #expect(waiting.nextDeadline == nil)
    }

    @Test func aClockThatSteppedBackDoesNotHoldBackRequestsThatRanOut() {
        var waiting = WaitingTimelineRequests()
        waiting.add(Self.request("early", version: 9), route: [], now: Self.start)
        // The wall clock stepped back an hour: this one's deadline is before the first's.
        waiting.add(Self.request("stepped", version: 9), route: [], now: Self.start.addingTimeInterval(-3600))
        #expect(waiting.nextDeadline == Self.start.addingTimeInterval(-3600 + WaitingTimelineRequests.longestWait))
        #expect(waiting.takeExpired(at: Self.start.addingTimeInterval(-3000)).map(\.request.id) == ["stepped"])
        #expect(waiting.takeAll().map(\.request.id) == ["early"])
        #expect(waiting.nextDeadline == nil)
    }

    @Test func noMoreThanItsCapacityWait() {
        var waiting = WaitingTimelineRequests()
        for index in 0..<WaitingTimelineRequests.capacity {
            #expect(!waiting.isFull)
            waiting.add(Self.request("r\(index)"), route: [], now: Self.start)
        }
        #expect(waiting.isFull)
        _ = waiting.takeAnswerable { $0.request.id == "r0" }
        #expect(!waiting.isFull)
    }
}
