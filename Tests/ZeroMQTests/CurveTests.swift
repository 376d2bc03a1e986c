import Foundation
import Testing
import ZeroMQ

/// CurveZMQ through the wrapper: keys as libzmq makes them, and a handshake that succeeds only
/// with the server's real public key.
@Suite("CURVE")
struct CurveTests {
    @Test func libzmqHasCurve() {
        #expect(CurveKeyPair.isAvailable)
    }

    @Test func aGeneratedPairIsZ85AndItsPublicKeyFollowsFromItsSecret() throws {
        let pair = try CurveKeyPair.generate()
        #expect(CurveKeyPair.isWellFormed(pair.publicKey) && CurveKeyPair.isWellFormed(pair.secretKey))
        #expect(pair.publicKey != pair.secretKey)
        #expect(try CurveKeyPair(secretKey: pair.secretKey) == pair)
        #expect(CurveKeyPair.binary(pair.publicKey).flatMap(CurveKeyPair.z85) == pair.publicKey, "Z85 and binary round-trip")
        #expect(CurveKeyPair.binary(pair.publicKey)?.count == 32 && CurveKeyPair.binary("short") == nil)
        #expect(try CurveKeyPair.generate() != pair)
    }

    @Test func theSecretKeyIsNeverPrinted() throws {
        let pair = try CurveKeyPair.generate()
        var dumped = ""
        dump(pair, to: &dumped)
        for text in [pair.description, "\(pair)", String(describing: pair), String(reflecting: pair), dumped] {
            #expect(!text.contains(pair.secretKey) && text.contains(pair.publicKey), "\(text)")
        }
    }

    @Test("malformed secret keys are refused", arguments: ["", "short", String(repeating: "a", count: 39), String(repeating: "~", count: 40)])
    func malformed(secretKey: String) {
        #expect(throws: ZMQError.self) { try CurveKeyPair(secretKey: secretKey) }
    }

    @Test func aClientWithTheServersKeyTalksOneWithAnotherKeyGetsNothingThrough() throws {
        let fixture = try Fixture()
        defer { fixture.tearDown() }
        let serverKeys = try CurveKeyPair.generate()
        let server = try fixture.socket(.router)
        try server.makeCurveServer(keys: serverKeys, domain: "test")
        let endpoint = try fixture.bind(server, over: .tcp)

        let client = try fixture.socket(.dealer)
        try client.makeCurveClient(keys: try .generate(), serverKey: serverKeys.publicKey)
        try client.connect(endpoint)
        try client.send("over curve")
        let received = try #require(try server.receiveMessage())
        #expect(received.last == Data("over curve"))

        // A client that expects another server's key fails the handshake: nothing is delivered.
        let misled = try fixture.socket(.dealer)
        try misled.makeCurveClient(keys: try .generate(), serverKey: try CurveKeyPair.generate().publicKey)
        try misled.connect(endpoint)
        try misled.send("to the wrong server", dontWait: true)
        try server.setReceiveTimeout(milliseconds: 300)
        #expect(try server.receiveMessage() == nil)
    }
}
