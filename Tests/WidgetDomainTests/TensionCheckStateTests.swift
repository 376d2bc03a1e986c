import Foundation
import Testing
@testable import WidgetDomain

@Suite("TensionCheckState")
struct TensionCheckStateTests {
    @Test func initialIsAnIdlePickerWithoutHistory() {
        #expect(TensionCheckState.initial.phase == .picker)
        #expect(TensionCheckState.initial.lastSuggestionId == nil)
        #expect(TensionCheckState() == .initial)
    }

    @Test("completed shows until resetAt", arguments: [-3600.0, -5, -1, -0.001])
    func completedBeforeReset(offsetFromReset: Double) {
        let resetAt = Fixture.now.addingTimeInterval(5)
        #expect(Fixture.completedState.phase(at: resetAt.addingTimeInterval(offsetFromReset)) == Fixture.completedPhase)
    }

    @Test("the picker returns at and after resetAt", arguments: [0.0, 0.001, 1, 3600, 31_536_000] as [Double])
    func pickerAtAndAfterReset(offsetFromReset: Double) {
        let resetAt = Fixture.now.addingTimeInterval(5)
        #expect(Fixture.completedState.phase(at: resetAt.addingTimeInterval(offsetFromReset)) == .picker)
    }

    @Test("picker and suggestion never change with time", arguments: [-86_400.0, 0, 5, 86_400])
    func otherPhasesAreTimeless(offset: Double) {
        let date = Fixture.now.addingTimeInterval(offset)
        #expect(Fixture.pickerState.phase(at: date) == .picker)
        #expect(Fixture.suggestionState.phase(at: date) == Fixture.suggestionPhase)
    }

    @Test func readingThePhaseDoesNotWrite() {
        let state = Fixture.completedState
        _ = state.phase(at: Fixture.now.addingTimeInterval(60))
        #expect(state.phase == Fixture.completedPhase)
    }
}
