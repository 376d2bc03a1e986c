import Foundation
import Testing
@testable import WidgetDomain

@Suite("HRVHistory")
struct StressMonitorHRVHistoryTests {
    let t0 = StressFixture.now

    func sample(_ value: Double, _ minutes: Double) -> HRVSample {
        HRVSample(milliseconds: value, measuredAt: t0.addingTimeInterval(minutes * 60))
    }

    @Test func keepsTimeOrderWhateverTheArrivalOrder() {
        var history: [HRVSample] = []
        for (value, minute) in [(50.0, 10.0), (40, 0), (60, 20), (45, 5)] {
            history = HRVHistory.inserting(sample(value, minute), into: history)
        }
        #expect(history.map(\.milliseconds) == [40, 45, 50, 60])
    }

    @Test func keepsTheNewestTwentyFour() {
        var history: [HRVSample] = []
        for minute in 0..<30 { history = HRVHistory.inserting(sample(Double(minute + 1), Double(minute)), into: history) }
        #expect(history.count == 24)
        #expect(history.map(\.milliseconds) == (7...30).map(Double.init))
    }

    @Test func aSampleOlderThanAFullWindowChangesNothing() {
        let full = (0..<24).map { sample(Double($0 + 10), Double($0)) }
        #expect(HRVHistory.inserting(sample(99, -1), into: full) == full)
    }

    @Test func aLateSampleInsideTheWindowPushesTheOldestOut() {
        let full = (0..<24).map { sample(Double($0 + 10), Double($0)) }
        let next = HRVHistory.inserting(sample(99, 3.5), into: full)
        #expect(next.count == 24)
        #expect(next.first == full[1])
        #expect(next[3] == sample(99, 3.5))
    }

    @Test func theSameInstantReplacesInsteadOfDuplicating() {
        let history = [sample(40, 0), sample(50, 1)]
        #expect(HRVHistory.inserting(sample(55, 1), into: history) == [sample(40, 0), sample(55, 1)])
        #expect(HRVHistory.inserting(sample(50, 1), into: history) == history)
    }

    @Test func theLimitIsAParameter() {
        let history = (0..<5).map { sample(Double($0), Double($0)) }
        #expect(HRVHistory.inserting(sample(9, 9), into: history, limit: 3).map(\.milliseconds) == [3, 4, 9])
        #expect(StressMonitorLimits.hrvHistoryLimit == 24)
    }
}
