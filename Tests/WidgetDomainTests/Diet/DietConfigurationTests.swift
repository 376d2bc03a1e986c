import Testing
@testable import WidgetDomain

/// `ConfigureDietWidgetIntent {kind, showMacros, compactMode}`: per-kind configuration.
@Suite("Diet widget configuration")
struct DietConfigurationTests {
    typealias Machine = DietStateMachine

    @Test func configurationIsStoredForItsKindOnly() throws {
        var context = DietFixture.context()
        let next = try Machine.reduce(
            DietFixture.synced, .configureWidget(kind: "DietProgressWidget", showMacros: false, compactMode: true),
            context: &context
        ).state
        #expect(next.configuration(for: .dietProgress) == DietWidgetConfiguration(showMacros: false, compactMode: true))
        #expect(next.configuration(for: .quickLog) == .default)
        #expect(next.configuration(for: .lockScreen) == .default)
        #expect(next.nutrition == DietFixture.synced.nutrition)
    }

    @Test func absentFlagsTakeTheSeedsDefaults() throws {
        var context = DietFixture.context()
        var state = DietFixture.synced
        state.configurations[.lockScreen] = DietWidgetConfiguration(showMacros: false, compactMode: true)
        let next = try Machine.reduce(
            state, .configureWidget(kind: "LockScreenWidget", showMacros: nil, compactMode: nil), context: &context
        ).state
        #expect(next.configuration(for: .lockScreen) == DietWidgetConfiguration(showMacros: true, compactMode: false))
    }

    @Test func configuringBeforeTheFirstSyncIsAllowed() throws {
        var context = DietFixture.context()
        let next = try Machine.reduce(.initial, .configureWidget(kind: "QuickLogWidget", showMacros: false, compactMode: nil), context: &context).state
        #expect(next.configuration(for: .quickLog).showMacros == false)
        #expect(next.hasData == false)
    }

    @Test("an unknown kind is unknown_widget_kind", arguments: ["", "JitterWidget", "dietProgress", "MacroBreakdownWidget"])
    func unknownKind(kind: String) {
        var context = DietFixture.context()
        let violation = ruleViolation {
            _ = try Machine.reduce(DietFixture.synced, .configureWidget(kind: kind, showMacros: true, compactMode: false), context: &context)
        }
        #expect(violation?.code == "unknown_widget_kind")
    }
}
