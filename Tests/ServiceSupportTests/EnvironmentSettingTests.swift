import Foundation
import Testing
@testable import ServiceSupport

@Suite("Environment settings")
struct EnvironmentSettingTests {
    let setting = EnvironmentSetting(variable: "WIDGETBUS_TEST_SETTING", defaultValue: "25", purpose: "a test")

    @Test func anUnsetOrEmptyVariableTakesTheDefault() throws {
        #expect(try setting.integer(in: [:], range: 0...100) == 25)
        #expect(try setting.integer(in: ["WIDGETBUS_TEST_SETTING": ""], range: 0...100) == 25)
        #expect(try setting.seconds(in: [:], range: 0...100) == .seconds(25))
    }

    @Test func valuesAreParsedWithinTheirRange() throws {
        #expect(try setting.integer(in: ["WIDGETBUS_TEST_SETTING": "100"], range: 0...100) == 100)
        #expect(try setting.seconds(in: ["WIDGETBUS_TEST_SETTING": "0.0125"], range: 0...1) == .milliseconds(13))
    }

    @Test("values that are not numbers or out of range are refused, naming the variable", arguments: [
        "abc", "-1", "101", "1e9", "nan", "10 ", "5.5",
    ])
    func refused(text: String) {
        do {
            _ = try setting.integer(in: ["WIDGETBUS_TEST_SETTING": text], range: 0...100)
            Issue.record("\(text) was accepted")
        } catch {
            #expect(error.description.hasPrefix("WIDGETBUS_TEST_SETTING must be a whole number in 0…100"))
        }
    }

    @Test func secondsRefuseInfinityAndNegatives() {
        for text in ["inf", "-0.5", "nan", "x"] {
            #expect(throws: InvalidSetting.self) { try setting.seconds(in: ["WIDGETBUS_TEST_SETTING": text], range: 0...60) }
        }
    }
}
