import Testing
@testable import WidgetDomain

@Suite("DietWidgetKind")
struct DietWidgetKindTests {
    @Test func kindStringsAreTheSeeds() {
        #expect(DietWidgetKind.allCases.map(\.rawValue) == ["DietProgressWidget", "QuickLogWidget", "LockScreenWidget"])
    }

    @Test func familiesAreTheSeeds() {
        #expect(DietWidgetKind.dietProgress.supportedFamilies == ["systemSmall", "systemMedium"])
        #expect(DietWidgetKind.quickLog.supportedFamilies == ["systemMedium"])
        #expect(DietWidgetKind.lockScreen.supportedFamilies == ["accessoryCircular", "accessoryRectangular", "accessoryInline"])
    }

    @Test func unknownKindStringIsNotAKind() {
        #expect(DietWidgetKind(rawValue: "MacroBreakdownWidget") == nil)
        #expect(DietWidgetKind(rawValue: "dietprogresswidget") == nil)
    }
}
