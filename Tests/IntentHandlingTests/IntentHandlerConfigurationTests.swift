import BusRuntime
import Foundation
import Testing

@testable import IntentHandling
@testable import ServiceSupport

/// intent-handler's settings as read from the environment.
@Suite struct IntentHandlerConfigurationTests {
    @Test func theIntentsSocketRestsAMillisecondUnlessToldOtherwise() throws {
        #expect(try IntentHandlerService.Configuration(environment: [:]).intentPacingMicroseconds == 1_000)
        let none = try IntentHandlerService.Configuration(environment: ["WIDGETBUS_INTENT_PACING_US": "0"])
        #expect(none.intentPacingMicroseconds == 0, "0 turns the rests off")
        let short = try IntentHandlerService.Configuration(environment: ["WIDGETBUS_INTENT_PACING_US": "250"])
        #expect(short.intentPacingMicroseconds == 250)
    }

    @Test(arguments: ["-1", "100001", "1ms"])
    func aPacingOutsideZeroToATenthOfASecondStopsTheServiceAtStart(_ value: String) {
        #expect(throws: InvalidSetting.self) {
            try IntentHandlerService.Configuration(environment: ["WIDGETBUS_INTENT_PACING_US": value])
        }
    }

    @Test func anIntentWaitsAtMostHalfASecondUnlessToldOtherwise() throws {
        #expect(try IntentHandlerService.Configuration(environment: [:]).intentAdmission.longestWait == 0.5)
        let long = try IntentHandlerService.Configuration(environment: ["WIDGETBUS_INTENT_LONGEST_WAIT_MS": "2000"])
        #expect(long.intentAdmission.longestWait == 2)
    }

    @Test(arguments: ["0", "60001", "1s"])
    func aLongestWaitOutsideAMillisecondToAMinuteStopsTheServiceAtStart(_ value: String) {
        #expect(throws: InvalidSetting.self) {
            try IntentHandlerService.Configuration(environment: ["WIDGETBUS_INTENT_LONGEST_WAIT_MS": value])
        }
    }

    @Test func timelineServiceMayFallASecondBehindUnlessToldOtherwiseAndZeroDoesNotFollowIt() throws {
        let defaults = try IntentHandlerService.Configuration(environment: [:])
        #expect(defaults.longestTimelineLag == 1)
        #expect(defaults.timelineEventsEndpoint == "tcp://127.0.0.1:5571", "its heartbeats come with its events")
        #expect(try IntentHandlerService.Configuration(environment: ["WIDGETBUS_TIMELINE_LONGEST_LAG_MS": "0"]).longestTimelineLag == 0)
        #expect(throws: InvalidSetting.self) {
            try IntentHandlerService.Configuration(environment: ["WIDGETBUS_TIMELINE_LONGEST_LAG_MS": "60001"])
        }
    }
}
