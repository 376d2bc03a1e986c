import AppGatewayIdentity
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Synchronization
import Testing

@testable import AppGateway

/// An issuer's JWKS fetched from its URL, served here by a real HTTP server on loopback: fetched
/// at start, again for an unknown `kid` (a rotation), and not again within the refetch interval
/// however many unknown `kid`s arrive.
struct RemoteSigningKeySourceTests {
    final class Issuer: Sendable {
        let document: Mutex<Data>
        let fetches = Atomic<Int>(0)

        init(_ document: Data) {
            self.document = Mutex(document)
        }
    }

    static func serving(_ issuer: Issuer, _ body: @escaping @Sendable (URL) async throws -> Void) async throws {
        let router = Router()
        router.get("keys") { _, _ in
            issuer.fetches.add(1, ordering: .relaxed)
            return Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(bytes: issuer.document.withLock { $0 })))
        }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in
            try await body(URL(string: "http://127.0.0.1:\(try #require(client.port))/keys")!)
        }
    }

    @Test func aRotatedKeyIsFetchedWhenATokenFirstNamesIt() async throws {
        let first = IssuerSigningKey(generating: .es256), second = IssuerSigningKey(generating: .edDSA)
        let issuer = Issuer(try first.jwks(kid: "one"))
        try await Self.serving(issuer) { url in
            let source = try RemoteSigningKeySource(url: url, refetchInterval: .zero, logger: Logger(label: "test"))
            await source.refresh()
            #expect(await source.key(id: "one")?.algorithm == .es256)
            #expect(issuer.fetches.load(ordering: .relaxed) == 1)
            issuer.document.withLock { $0 = try! second.jwks(kid: "two") }
            #expect(await source.key(id: "two")?.algorithm == .edDSA, "fetched again for the kid it lacked")
            #expect(issuer.fetches.load(ordering: .relaxed) == 2)
            #expect(await source.key(id: "one") == nil, "the document replaces the keys held")
        }
    }

    @Test func unknownKidsWithinTheIntervalFetchNothing() async throws {
        let issuer = Issuer(try IssuerSigningKey(generating: .es256).jwks(kid: "one"))
        try await Self.serving(issuer) { url in
            let source = try RemoteSigningKeySource(url: url, logger: Logger(label: "test"))
            await source.refresh()
            for kid in (0..<50).map({ "forged-\($0)" }) { #expect(await source.key(id: kid) == nil) }
            #expect(issuer.fetches.load(ordering: .relaxed) == 1, "one fetch a minute, whatever kids a sender makes up")
            #expect(await source.key(id: "one") != nil)
        }
    }

    @Test func onlyHTTPSOrALoopbackHost() {
        #expect(throws: IdentityConfigurationError.self) {
            try RemoteSigningKeySource(url: URL(string: "http://keys.example.com/jwks")!, logger: Logger(label: "test"))
        }
        #expect(throws: Never.self) {
            try RemoteSigningKeySource(url: URL(string: "https://appleid.apple.com/auth/keys")!, logger: Logger(label: "test"))
        }
    }
}
