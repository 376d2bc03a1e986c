import Testing
@testable import WidgetBusProtocol

@Suite("Bus endpoints")
struct EndpointTests {
    @Test("defaults are loopback with the documented ports", arguments: [
        (BusEndpoint.intents, "WIDGETBUS_INTENTS", "tcp://127.0.0.1:5560"),
        (.stateEvents, "WIDGETBUS_STATE_EVENTS", "tcp://127.0.0.1:5561"),
        (.stateSnapshot, "WIDGETBUS_STATE_SNAPSHOT", "tcp://127.0.0.1:5562"),
        (.timelines, "WIDGETBUS_TIMELINES", "tcp://127.0.0.1:5570"),
        (.timelineEvents, "WIDGETBUS_TIMELINE_EVENTS", "tcp://127.0.0.1:5571"),
    ])
    func defaults(endpoint: BusEndpoint, variable: String, value: String) {
        #expect(endpoint.variable == variable)
        #expect(endpoint.defaultValue == value)
        #expect(endpoint.resolve(in: [:]) == value)
        #expect(!endpoint.purpose.isEmpty)
    }

    @Test func allListsEachEndpointOnceWithDistinctVariablesAndPorts() {
        #expect(Set(BusEndpoint.all).isSuperset(of: [.intents, .stateEvents, .stateSnapshot, .timelines, .timelineEvents]))
        #expect(Set(BusEndpoint.all).count == BusEndpoint.all.count)
        #expect(Set(BusEndpoint.all.map(\.variable)).count == BusEndpoint.all.count)
        #expect(Set(BusEndpoint.all.map(\.defaultValue)).count == BusEndpoint.all.count)
        #expect(BusEndpoint.all.allSatisfy { $0.variable.hasPrefix("WIDGETBUS_") && $0.defaultValue.hasPrefix("tcp://127.0.0.1:") })
    }

    @Test("the environment overrides the default", arguments: BusEndpoint.all)
    func override(endpoint: BusEndpoint) {
        let environment = [endpoint.variable: "tcp://10.0.0.5:6000", "UNRELATED": "tcp://1.2.3.4:1"]
        #expect(endpoint.resolve(in: environment) == "tcp://10.0.0.5:6000")
    }

    @Test("an empty value falls back to the default", arguments: BusEndpoint.all)
    func emptyFallsBack(endpoint: BusEndpoint) {
        #expect(endpoint.resolve(in: [endpoint.variable: ""]) == endpoint.defaultValue)
    }

    @Test func otherEndpointsVariablesDoNotLeak() {
        #expect(BusEndpoint.intents.resolve(in: ["WIDGETBUS_TIMELINES": "tcp://10.0.0.5:6000"]) == "tcp://127.0.0.1:5560")
        #expect(BusEndpoint.intents.resolve(in: ["widgetbus_intents": "tcp://10.0.0.5:6000"]) == "tcp://127.0.0.1:5560")
    }

    @Test("tcp endpoints bind their port on the given host, whatever host they name", arguments: [
        ("tcp://127.0.0.1:5560", "127.0.0.1", "tcp://127.0.0.1:5560"),
        ("tcp://localhost:5571", "127.0.0.1", "tcp://127.0.0.1:5571"),
        ("tcp://10.0.0.5:6000", "127.0.0.1", "tcp://127.0.0.1:6000"),
        ("tcp://[::1]:5560", "0.0.0.0", "tcp://0.0.0.0:5560"),
        ("tcp://*:5560", "10.1.2.3", "tcp://10.1.2.3:5560"),
        ("tcp://intent-handler:5560", "0.0.0.0", "tcp://0.0.0.0:5560"),
    ])
    func tcpBind(endpoint: String, host: String, bind: String) {
        #expect(BusEndpoint.bindAddress(for: endpoint, host: host) == bind)
    }

    @Test("other transports bind as given", arguments: [
        "ipc:///tmp/widgetbus/intents.sock", "inproc://intents", "ipc://@abstract:1",
    ])
    func otherTransports(endpoint: String) {
        #expect(BusEndpoint.bindAddress(for: endpoint, host: "0.0.0.0") == endpoint)
    }
}
