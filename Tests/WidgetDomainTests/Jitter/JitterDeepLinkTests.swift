import Testing
@testable import WidgetDomain

@Suite("JitterDeepLink")
struct JitterDeepLinkTests {
    @Test func uuidIdsPassUnchanged() {
        #expect(JitterDeepLink.completeDrink(sessionId: "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d")
            == "jitter://complete-drink?sessionId=0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d")
    }

    @Test("everything but unreserved characters is percent-encoded", arguments: [
        ("a b", "a%20b"), ("x&admin=1", "x%26admin%3D1"), ("id#frag", "id%23frag"), ("a/b?c", "a%2Fb%3Fc"),
        ("100%", "100%25"), ("café", "caf%C3%A9"), ("A-Z_a.z~0", "A-Z_a.z~0"), ("+", "%2B"), ("", ""),
    ])
    func encoded(id: String, expected: String) {
        #expect(JitterDeepLink.completeDrink(sessionId: id) == "jitter://complete-drink?sessionId=\(expected)")
    }
}
