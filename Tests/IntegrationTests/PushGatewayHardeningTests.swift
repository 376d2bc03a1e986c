import Crypto
import FakeAPNs
import Foundation
import Testing

/// push-gateway against answers and settings that once made it misbehave (issue #32), each test
/// failing before its fix: the same processes and fake APNs as ``PushGatewayEndToEndTests``.
extension PushGatewayEndToEndTests {
    @Test("an http:// APNs URL is refused at start, naming the variable, unless the setting for tests allows it")
    func plaintextAPNsIsRefused() throws {
        let bus = try BusFixture()
        let sending = try Rig.sendingEnvironment(in: bus, key: P256.Signing.PrivateKey(), apnsURL: "https://localhost:1")
        for variable in ["WIDGETBUS_APNS_PRODUCTION_URL", "WIDGETBUS_APNS_SANDBOX_URL"] {
            let process = try ServiceProcess(
                name: "push-gateway", executable: BusFixture.productsDirectory.appendingPathComponent("push-gateway"),
                environment: bus.environment.merging(sending.merging([variable: "http://localhost:1"]) { $1 }) { $1 }, logDirectory: bus.root)
            try bus.waitUntil("push-gateway refuses \(variable)=http://", timeout: 10) { !process.isRunning }
            let said = (process.output + process.log).split(separator: "\n").filter { $0.contains(variable as String) }
            #expect(said.count == 1 && said.first?.contains("https") == true, "push-gateway said: \(process.output) \(process.log)")
            #expect(process.terminate() != 0, "push-gateway exits with a failure")
        }

        let allowed = try bus.start(
            .pushGateway,
            extraEnvironment: sending.merging(["WIDGETBUS_APNS_PRODUCTION_URL": "http://localhost:1", "WIDGETBUS_APNS_ALLOW_PLAINTEXT_FOR_TESTS": "1"]) { $1 })
        #expect(allowed.log.contains("WIDGETBUS_APNS_ALLOW_PLAINTEXT_FOR_TESTS"), "it warns that pushes may go in clear text: \(allowed.log)")
    }
}
