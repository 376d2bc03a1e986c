import Testing
@testable import WidgetDomain

@Suite("RR interval analysis")
struct RRIntervalAnalysisTests {
    /// Ten clean intervals. Successive differences 10, −20, 15, −10, 5, 20, −40, 20, 10:
    /// Σd² = 3350 over 9 pairs. Mean 801; Σ(x − 801)² = 1140 over n − 1 = 9.
    static let clean: [Double] = [800, 810, 790, 805, 795, 800, 820, 780, 800, 810]

    @Test func rmssdAndSDNNMatchHandComputedValues() throws {
        let analysis = try #require(RRIntervalAnalysis.analyze(Self.clean))
        #expect(abs(analysis.rmssd - (3350.0 / 9).squareRoot()) < 1e-9)  // 19.293 ms
        #expect(abs(analysis.sdnn - (1140.0 / 9).squareRoot()) < 1e-9)  // 11.255 ms
        #expect(analysis.meanNN == 801)
        #expect(analysis.cleanIntervals == 10)
        #expect(analysis.artefacts == 0)
    }

    /// 250 and 2100 are outside 300–2000 ms; 1000 is 24 % above the previous accepted 805.
    /// Clean: 800 810 · 790 805 · 795 800 820 · 780 800 810 812 (11). Pairs adjacent in the
    /// recording: 10, 15, 5, 20, 20, 10, 2 → Σd² = 1254 over 7. Mean 802, Σ(x − 802)² = 1250 over 10.
    @Test func artefactsAreRemovedAndNoDifferenceSpansOne() throws {
        let recording: [Double] = [800, 810, 250, 790, 805, 1000, 795, 800, 820, 2100, 780, 800, 810, 812]
        #expect(RRIntervalAnalysis.cleanMask(recording) == [
            true, true, false, true, true, false, true, true, true, false, true, true, true, true,
        ])
        let analysis = try #require(RRIntervalAnalysis.analyze(recording))
        #expect(analysis.cleanIntervals == 11)
        #expect(analysis.artefacts == 3)
        #expect(abs(analysis.rmssd - (1254.0 / 7).squareRoot()) < 1e-9)
        #expect(abs(analysis.sdnn - 125.0.squareRoot()) < 1e-9)
        #expect(analysis.meanNN == 802)
    }

    @Test func theTwentyPercentRuleIsAgainstThePreviousAcceptedInterval() {
        // 1000 is exactly +25 % of 800 → artefact; 960 is +20 % of 800 → kept (not more than 20 %).
        #expect(RRIntervalAnalysis.cleanMask([800, 1000, 960]) == [true, false, true])
        // After a rejected interval the reference stays the last accepted one, not the artefact.
        #expect(RRIntervalAnalysis.cleanMask([800, 500, 790]) == [true, false, true])
        #expect(RRIntervalAnalysis.cleanMask([299, 300, 2000, 2001]) == [false, true, false, false])
    }

    @Test func fewerThanTenCleanIntervalsGiveNoResult() {
        #expect(RRIntervalAnalysis.analyze(Array(Self.clean.prefix(9))) == nil)
        #expect(RRIntervalAnalysis.analyze(Self.clean.prefix(9) + [3000, 100]) == nil)
        #expect(RRIntervalAnalysis.analyze([]) == nil)
    }

    @Test func cleanIntervalsWithNoAdjacentPairGiveNoResult() {
        // Every other beat is an artefact: ten clean intervals, but no two in a row.
        let alternating: [Double] = Array(repeating: [800, 100], count: 10).flatMap { $0 }
        #expect(RRIntervalAnalysis.cleanMask(alternating).filter { $0 }.count == 10)
        #expect(RRIntervalAnalysis.analyze(alternating) == nil)
    }
}
