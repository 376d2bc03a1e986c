import Testing
@testable import WidgetBusProtocol
import WidgetDomain

@Suite("Topics")
struct TopicTests {
    @Test func stateTopicIsPrefixAppUser() {
        #expect(Topic.state(app: .tensionCheck, user: "alice") == "state.tensionCheck.alice")
        #expect(Topic.state(app: .tensionCheck, user: "zoë") == "state.tensionCheck.zoë")
    }

    @Test func timelineTopicUsesTheWidgetKindString() {
        #expect(Topic.timeline(kind: .tensionCheck, user: "alice") == "timeline.TensionCheckWidget.alice")
    }

    @Test func prefixesAndHeartbeat() {
        #expect(Topic.statePrefix == "state.")
        #expect(Topic.timelinePrefix == "timeline.")
        #expect(Topic.heartbeat == "heartbeat")
    }

    @Test func generalPartsComeFirstForPrefixSubscriptions() {
        let topic = Topic.state(app: .tensionCheck, user: "alice")
        #expect(topic.hasPrefix(Topic.statePrefix))
        #expect(topic.hasPrefix(Topic.statePrefix + WidgetApp.tensionCheck.rawValue + "."))
        #expect(Topic.timeline(kind: .tensionCheck, user: "alice").hasPrefix(Topic.timelinePrefix))
    }

    @Test func heartbeatMatchesNoEventPrefix() {
        #expect(!Topic.heartbeat.hasPrefix(Topic.statePrefix))
        #expect(!Topic.heartbeat.hasPrefix(Topic.timelinePrefix))
        #expect(!Topic.statePrefix.hasPrefix(Topic.timelinePrefix) && !Topic.timelinePrefix.hasPrefix(Topic.statePrefix))
    }
}
