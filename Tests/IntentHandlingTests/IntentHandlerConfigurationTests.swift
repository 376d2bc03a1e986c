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

/// Who a shard is, and the even share of slots each live shard aims at.
@Suite struct ShardIdentityTests {
    @Test func aShardIsNamedForItsHostAndSendsClientsToItsIntentsEndpointUnlessToldOtherwise() throws {
        let plain = try IntentHandlerService.Configuration(environment: ["WIDGETBUS_INTENTS": "tcp://127.0.0.1:7000"]).shard
        #expect(plain == ShardIdentity(name: ProcessInfo.processInfo.hostName, endpoint: "tcp://127.0.0.1:7000", lease: 3))
        #expect(plain.renewalInterval == 1)
        let named = try IntentHandlerService.Configuration(environment: [
            "WIDGETBUS_SHARD_NAME": "east-1", "WIDGETBUS_SHARD_ENDPOINT": "tcp://10.0.0.7:5560", "WIDGETBUS_SHARD_LEASE_MS": "6000",
        ]).shard
        #expect(named == ShardIdentity(name: "east-1", endpoint: "tcp://10.0.0.7:5560", lease: 6))
    }

    @Test(arguments: ["299", "60001", "3s"])
    func aLeaseOutsideitsRangeStopsTheService(_ value: String) {
        #expect(throws: InvalidSetting.self) { try IntentHandlerService.Configuration(environment: ["WIDGETBUS_SHARD_LEASE_MS": value]) }
    }

    @Test func liveShardsShareTheSlotsEvenlyTheFirstInNameOrderTakingTheRemainder() {
        #expect(SlotLeases.share(of: "a", among: ["a"]) == 256)
        #expect(SlotLeases.share(of: "b", among: ["a", "b"]) == 128)
        let three = ["a", "b", "c"].map { SlotLeases.share(of: $0, among: ["a", "b", "c"]) }
        #expect(three == [86, 85, 85] && three.reduce(0, +) == 256)
        #expect(SlotLeases.share(of: "z", among: ["a", "b"]) == 0, "a shard not among the live ones takes nothing")
    }
}
