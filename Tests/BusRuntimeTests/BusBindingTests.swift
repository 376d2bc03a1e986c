import Testing

@testable import ServiceSupport
@testable import BusRuntime

@Suite struct BusBindingTests {
    @Test func byDefaultEveryEndpointListensOnLoopback() throws {
        let binding = try BusBinding(environment: [:])
        #expect(binding.host == "127.0.0.1" && binding.security == nil)
        #expect(binding.address(for: "tcp://intent-handler:5560") == "tcp://127.0.0.1:5560")
        #expect(binding.address(for: "inproc://intents") == "inproc://intents")
    }

    @Test("loopback needs no more", arguments: ["127.0.0.1", "127.1.2.3", "lo"])
    func loopback(host: String) throws {
        #expect(try BusBinding(environment: ["WIDGETBUS_BIND_HOST": host]).host == host)
    }

    @Test("beyond loopback, only with WIDGETBUS_INSECURE=1", arguments: ["0.0.0.0", "*", "10.0.0.5", "eth0", "128.0.0.1"])
    func beyondLoopback(host: String) throws {
        #expect(throws: InvalidSetting.self) { try BusBinding(environment: ["WIDGETBUS_BIND_HOST": host]) }
        #expect(throws: InvalidSetting.self) { try BusBinding(environment: ["WIDGETBUS_BIND_HOST": host, "WIDGETBUS_INSECURE": "0"]) }
        let binding = try BusBinding(environment: ["WIDGETBUS_BIND_HOST": host, "WIDGETBUS_INSECURE": "1"])
        #expect(binding.address(for: "tcp://127.0.0.1:5571") == "tcp://\(host):5571")
    }

    @Test func theRefusalSaysWhyAndBothWaysOutInOneLine() {
        do {
            _ = try BusBinding(environment: ["WIDGETBUS_BIND_HOST": "0.0.0.0"])
            Issue.record("0.0.0.0 without WIDGETBUS_INSECURE=1 was accepted")
        } catch {
            #expect(!error.description.contains("\n"))
            #expect(error.description.hasPrefix("refusing to listen on 0.0.0.0 without authentication"))
            #expect(error.description.contains("WIDGETBUS_BIND_HOST=127.0.0.1") && error.description.contains("WIDGETBUS_INSECURE=1"))
        }
    }

    @Test("malformed values are refused", arguments: [
        ["WIDGETBUS_BIND_HOST": " "], ["WIDGETBUS_BIND_HOST": "tcp://127.0.0.1"], ["WIDGETBUS_BIND_HOST": "::1"],
        ["WIDGETBUS_INSECURE": "yes"], ["WIDGETBUS_INSECURE": "true"],
    ])
    func malformed(environment: [String: String]) {
        #expect(throws: InvalidSetting.self) { try BusBinding(environment: environment) }
    }
}
