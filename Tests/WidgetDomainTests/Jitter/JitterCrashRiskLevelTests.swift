import Testing
@testable import WidgetDomain

@Suite("Jitter crash-risk bands")
struct JitterCrashRiskLevelTests {
    @Test("bands are the seed's: ≥ 71 red, ≥ 31 orange, else green", arguments: [
        (0, CrashRiskLevel.low, CrashRiskColor.green), (30, .low, .green), (31, .medium, .orange), (42, .medium, .orange),
        (70, .medium, .orange), (71, .high, .red), (100, .high, .red),
    ])
    func band(score: Int, level: CrashRiskLevel, color: CrashRiskColor) {
        #expect(CrashRiskLevel(score: score) == level)
        #expect(level.color == color)
    }

    @Test func wireNames() {
        #expect(CrashRiskLevel.allCases.map(\.rawValue) == ["low", "medium", "high"])
        #expect(CrashRiskColor.allCases.map(\.rawValue) == ["green", "orange", "red", "gray"])
    }

    @Test func noDataIsGrayAndTheSeedsPlaceholder() {
        let content = JitterWidgetContent(scores: nil)
        #expect(content.riskColor == .gray)
        #expect(content.isPlaceholder)
        #expect(content.crashRiskScore == 42)
        #expect(content.focusScore == 78)
        #expect(content.currentCaffeineLevel == 85)
        #expect(content.riskLevel == .medium)
        #expect(content.lastUpdated == nil)
    }

    @Test func scoresCarryTheirBandsColour() {
        let content = JitterWidgetContent(scores: JitterFixture.scores)
        #expect(content.riskColor == .red)
        #expect(content.riskLevel == .high)
        #expect(content.isPlaceholder == false)
    }
}
