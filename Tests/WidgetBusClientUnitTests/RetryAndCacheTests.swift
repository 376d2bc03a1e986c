import Foundation
import OpenAPIRuntime
import Testing

@testable import WidgetBusClient

private struct ConnectionDropped: Error {}

/// The client's own rules, in-process: when it waits and for how long, and what its cache keeps.
struct RetryAndCacheTests {
    @Test func theWaitDoublesUpToTheLongestAndRetryAfterWinsUnlessItIsLonger() {
        let policy = RetryPolicy(attempts: 6, firstDelay: .milliseconds(200), longestDelay: .seconds(1))
        #expect((1...5).map { policy.delay(afterFailures: $0, retryAfter: nil) } == [
            .milliseconds(200), .milliseconds(400), .milliseconds(800), .seconds(1), .seconds(1),
        ])
        #expect(policy.delay(afterFailures: 1, retryAfter: .seconds(1)) == .seconds(1))
        #expect(policy.delay(afterFailures: 1, retryAfter: .seconds(2)) == nil, "longer than the policy waits: the caller decides")
    }

    @Test func onlyTransientFailuresAreRetriedAndNoMoreThanTheAttempts() async throws {
        let policy = RetryPolicy(attempts: 3, firstDelay: .milliseconds(1), longestDelay: .milliseconds(1))
        var calls = 0
        await #expect(throws: WidgetBusClientError.self) {
            try await policy.run { () async throws -> Int in
                calls += 1
                throw WidgetBusClientError.unreachable(ConnectionDropped())
            }
        }
        #expect(calls == 3)

        calls = 0
        let refused = Components.Schemas.Problem(
            _type: "urn:widgetbus:problem:invalid_level", title: "Unprocessable Content", status: 422, detail: "level", code: .invalidLevel)
        await #expect(throws: WidgetBusClientError.self) {
            try await policy.run { () async throws -> Int in
                calls += 1
                throw WidgetBusClientError.problem(refused, retryAfter: nil)
            }
        }
        #expect(calls == 1, "a refusal is final")

        calls = 0
        let value = try await policy.run { () async throws -> Int in
            calls += 1
            if calls == 1 { throw WidgetBusClientError.unexpectedResponse(operation: "getTimeline", status: 502) }
            return 7
        }
        #expect(value == 7 && calls == 2)
    }

    @Test func theCacheKeepsAValueWithItsTagAndDateAndIgnoresAForeignFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("widgetbus-client-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = ResponseCache(directory: directory)
        #expect(cache.read("TensionCheckWidget.timeline", as: [String: Int].self) == nil)

        let confirmedAt = Date(timeIntervalSince1970: 1_795_000_000.123)
        try cache.write(.init(etag: #""s1-mx-p0-g5""#, confirmedAt: confirmedAt, value: ["level": 7]), as: "TensionCheckWidget.timeline")
        let read = try #require(cache.read("TensionCheckWidget.timeline", as: [String: Int].self))
        #expect(read.etag == #""s1-mx-p0-g5""# && read.value == ["level": 7])
        #expect(abs(read.confirmedAt.timeIntervalSince(confirmedAt)) < 0.001, "kept to the millisecond")

        try Data("not json".utf8).write(to: directory.appendingPathComponent("DietProgressWidget.timeline.json"))
        #expect(cache.read("DietProgressWidget.timeline", as: [String: Int].self) == nil)
    }

    @Test func datesAreReadWithOrWithoutMillisecondsAndWrittenWithThem() throws {
        struct Dated: Codable { var at: Date }
        let withMilliseconds = try JSONDecoder.gateway.decode(Dated.self, from: Data(#"{"at":"2026-11-22T09:30:00.250Z"}"#.utf8))
        let without = try JSONDecoder.gateway.decode(Dated.self, from: Data(#"{"at":"2026-11-22T09:30:00Z"}"#.utf8))
        #expect(withMilliseconds.at.timeIntervalSince(without.at) == 0.25)
        #expect(String(decoding: try JSONEncoder.gateway.encode(withMilliseconds), as: UTF8.self) == #"{"at":"2026-11-22T09:30:00.250Z"}"#)
        // Every millisecond survives a trip through the cache: the same text, the same date.
        for millisecond in 0..<1000 {
            let text = #"{"at":"2026-11-22T09:30:00.\#(String(format: "%03d", millisecond))Z"}"#
            let read = try JSONDecoder.gateway.decode(Dated.self, from: Data(text.utf8))
            let written = try JSONEncoder.gateway.encode(read)
            #expect(String(decoding: written, as: UTF8.self) == text)
            #expect(try JSONDecoder.gateway.decode(Dated.self, from: written).at == read.at)
        }
    }
}
