import Testing
@testable import WidgetDomain

@Suite("TensionLevel")
struct TensionLevelTests {
    @Test func levelsAreTheSeedScaleInOrder() {
        #expect(TensionLevel.allCases.map(\.rawValue) == [0, 3, 5, 7, 10])
    }

    @Test("emoji and label of each level", arguments: [
        (TensionLevel.none, "😌", "None"),
        (.mild, "🙂", "Mild"),
        (.moderate, "😐", "Mod"),
        (.strong, "😣", "High"),
        (.severe, "😫", "Bad"),
    ])
    func emojiAndLabel(level: TensionLevel, emoji: String, label: String) {
        #expect(level.emoji == emoji)
        #expect(level.label == label)
    }

    @Test("triggersSuggestion (seed 7a)", arguments: [
        (TensionLevel.none, false), (.mild, false), (.moderate, false), (.strong, true), (.severe, true),
    ])
    func triggersSuggestion(level: TensionLevel, triggers: Bool) {
        #expect(level.triggersSuggestion == triggers)
    }

    @Test("values off the scale are not levels", arguments: [-1, 1, 2, 4, 6, 8, 9, 11, Int.min, Int.max])
    func invalidRawValues(raw: Int) {
        #expect(TensionLevel(rawValue: raw) == nil)
    }

    @Test func emojisAndLabelsAreDistinct() {
        #expect(Set(TensionLevel.allCases.map(\.emoji)).count == TensionLevel.allCases.count)
        #expect(Set(TensionLevel.allCases.map(\.label)).count == TensionLevel.allCases.count)
    }
}
