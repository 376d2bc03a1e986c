import AppGatewayIdentity
import Testing
import WidgetBusProtocol

@Suite struct BusUserIDTests {
    let apple = try! IssuerAlias("apple")
    let app = try! IssuerAlias("app")

    /// The mapping is stored state's key: these ids must never change.
    @Test func goldenValues() {
        #expect(BusUserID.make(alias: apple, subject: "001234.0123456789abcdef0123456789abcdef.0123") == "apple:001234.0123456789abcdef0123456789abcdef.0123")
        #expect(BusUserID.make(alias: app, subject: "2f1c9a4e-7d3b-4c1a-9e8f-0b6d5a4c3e21") == "app:2f1c9a4e-7d3b-4c1a-9e8f-0b6d5a4c3e21")
        #expect(BusUserID.make(alias: app, subject: "..") == "app:..")
        #expect(BusUserID.make(alias: app, subject: "a/b\\c d%e:f") == "app:a%2Fb%5Cc%20d%25e%3Af")
        #expect(BusUserID.make(alias: app, subject: "café\u{0}\u{200B}") == "app:caf%C3%A9%00%E2%80%8B")
        #expect(BusUserID.make(alias: app, subject: String(repeating: "x", count: 200)) == "app:h:viqmeprsagbuaudhtyoyrfa3tjx62bkxzgtqlszmgfpc4y75jbwq")
    }

    @Test func anIDFillsTheLimitBeforeItIsHashed() {
        let longest = String(repeating: "s", count: ProtocolLimits.maxUserIDBytes - "app:".utf8.count)
        #expect(BusUserID.make(alias: app, subject: longest) == "app:" + longest)
        let hashed = BusUserID.make(alias: app, subject: longest + "s")
        #expect(hashed.hasPrefix("app:h:"))
        #expect(hashed.utf8.count == "app:h:".utf8.count + 52)
    }

    @Test func differentIssuersNeverShareAnID() {
        for subject in ["1", "h:abc", String(repeating: "é", count: 100), "apple:1"] {
            #expect(BusUserID.make(alias: apple, subject: subject) != BusUserID.make(alias: app, subject: subject))
        }
        // An encoded subject never has a second ':', so it cannot look like a hashed id.
        #expect(BusUserID.make(alias: app, subject: "h:x") == "app:h%3Ax")
    }

    /// Random and adversarial subjects: every id is valid on the bus, and distinct subjects get
    /// distinct ids.
    @Test func everyIDIsAValidBusUserIDAndDistinctSubjectsStayDistinct() throws {
        var generator = SplitMix64(seed: 0x5EED_33)
        let pieces = [
            "/", "\\", ".", "..", "%", ":", " ", "\u{0}", "\u{7F}", "\u{85}", "\u{200B}", "\u{2028}", "\u{FEFF}",
            "e\u{301}", "é", "😀", "\u{202E}", "a", "Z", "9", "~", "-", "_", "h:", "%2F",
        ]
        var subjects: Set<[UInt8]> = []
        var ids: Set<String> = []  // across both issuers
        for round in 0..<5_000 {
            let count = round % 10 == 0 ? Int(generator.next() % 400) : Int(generator.next() % 40) + 1
            let subject = (0..<count).map { _ in pieces[Int(generator.next() % UInt64(pieces.count))] }.joined()
            guard subjects.insert(Array(subject.utf8)).inserted else { continue }
            for alias in [apple, app] {
                let id = BusUserID.make(alias: alias, subject: subject)
                try ProtocolLimits.validateUser(id)
                #expect(ids.insert(id).inserted, "\(id) for two subjects or two issuers")
            }
        }
        #expect(subjects.count > 4_000)
    }

    @Test(arguments: ["", "Apple", "a:b", "a.b", "a/b", String(repeating: "a", count: 17), "é"])
    func refusesAnAliasThatCouldMakeAnInvalidOrAmbiguousID(_ alias: String) {
        #expect(throws: IdentityConfigurationError.self) { try IssuerAlias(alias) }
    }
}

/// A small seeded generator, so a failing subject can be found again.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
