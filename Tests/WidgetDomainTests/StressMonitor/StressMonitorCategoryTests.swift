import Testing
@testable import WidgetDomain

@Suite("StressCategory")
struct StressMonitorCategoryTests {
    @Test("exact integer boundaries", arguments: [
        (0, StressCategory.relaxed), (24, .relaxed), (25, .mild), (44, .mild), (45, .moderate), (69, .moderate),
        (70, .high), (100, .high),
    ])
    func boundaries(level: Int, category: StressCategory) {
        #expect(StressCategory(stressLevel: level) == category)
    }

    @Test("the seed's examples keep their categories", arguments: [
        (38, StressCategory.mild), (42, .mild), (45, .moderate), (50, .moderate),
    ])
    func seedExamples(level: Int, category: StressCategory) {
        #expect(StressCategory(stressLevel: level) == category)
    }

    @Test func rangesTileZeroToHundredInOrder() {
        let covered = StressCategory.allCases.flatMap { Array($0.range) }
        #expect(covered == Array(0...100))
        for category in StressCategory.allCases {
            #expect(category.range.allSatisfy { StressCategory(stressLevel: $0) == category })
        }
    }

    @Test func namesAndWireValues() {
        #expect(StressCategory.allCases.map(\.rawValue) == ["relaxed", "mild", "moderate", "high"])
        #expect(StressCategory.allCases.map(\.displayName) == ["Relaxed", "Mild", "Moderate", "High"])
    }

    @Test func outOfRangeScoresClamp() {
        #expect(StressCategory(stressLevel: -5) == .relaxed)
        #expect(StressCategory(stressLevel: 250) == .high)
    }
}
