import BusRuntime
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Synchronization
import Testing
import WidgetBusProtocol
import WidgetDomain

@testable import AppGateway

/// The gateway's pure parts, in-process: rate buckets on a given time, timeline versions and
/// their tags, event-stream positions, the HTTP status of each bus error, and what a live stream
/// keeps.
@Suite(.timeLimit(.minutes(1)))  // a stream that is never woken fails the test instead of stalling the run
struct GatewayLogicTests {
    @Test func aTokenBucketAllowsItsBurstThenItsRate() {
        var bucket = TokenBucket(capacity: 3, rate: 2, now: 100)
        #expect((0..<3).map { _ in bucket.take(at: 100) } == [nil, nil, nil])
        #expect(bucket.take(at: 100) == 0.5, "the next token comes in half a second at 2 a second")
        #expect(bucket.take(at: 100.5) == nil)
        #expect(bucket.take(at: 100.5) != nil)
        #expect(bucket.take(at: 200) == nil, "refilled, never past its capacity")
        #expect((0..<2).map { _ in bucket.take(at: 200) } == [nil, nil])
        #expect(bucket.take(at: 200) != nil)
    }

    @Test func aRateLimiterKeepsABucketPerKeyAndAnswersWholeSecondsToWait() {
        let limiter = RateLimiter(.init(burst: 1, rate: 0.25), maxKeys: 2)
        #expect(limiter.take("a", at: 0) == nil)
        #expect(limiter.take("a", at: 0) == 4)
        #expect(limiter.take("b", at: 0) == nil, "another key, another bucket")
        #expect(limiter.take("a", at: 4) == nil)
    }

    static func timeline(state: Int, metrics: Int? = nil, profile: Int, generatedAt: String, validUntil: String?) -> TimelineVersion {
        var fields = [#""stateVersion":\#(state)"#, #""profileVersion":\#(profile)"#, #""generatedAt":"\#(generatedAt)""#]
        if let metrics { fields.append(#""metricsVersion":\#(metrics)"#) }
        if let validUntil { fields.append(#""validUntil":"\#(validUntil)""#) }
        return TimelineVersion(JSONFieldScanner(Data("{\(fields.joined(separator: ","))}".utf8)))!
    }

    @Test func aTimelineIsNewerWhenAnyVersionOrItsBuildIs() {
        let base = Self.timeline(state: 3, profile: 1, generatedAt: "2026-11-27T10:00:00.000Z", validUntil: nil)
        #expect(Self.timeline(state: 4, profile: 1, generatedAt: "2026-11-27T09:00:00.000Z", validUntil: nil).isNewer(than: base))
        #expect(Self.timeline(state: 3, profile: 2, generatedAt: "2026-11-27T10:00:00.000Z", validUntil: nil).isNewer(than: base))
        #expect(Self.timeline(state: 3, profile: 1, generatedAt: "2026-11-27T10:05:00.000Z", validUntil: nil).isNewer(than: base), "a refresh")
        #expect(!base.isNewer(than: base))
        #expect(!Self.timeline(state: 2, profile: 1, generatedAt: "2026-11-27T10:00:00.000Z", validUntil: nil).isNewer(than: base))
    }

    @Test func aTagNamesTheVersionsAndTheBuild() {
        let edition = Self.timeline(state: 3, metrics: 7, profile: 1, generatedAt: "2026-11-27T10:00:00.250Z", validUntil: "2026-11-27T10:05:00.000Z")
        #expect(edition.entityTag(for: "dev:alice") == #""s3-m7-p1-g1795773600250-u85f5cf58e37dae82""#)
        let noMetrics = Self.timeline(state: 3, profile: 1, generatedAt: "2026-11-27T10:00:00.250Z", validUntil: nil)
        #expect(noMetrics.entityTag(for: "dev:alice") == #""s3-mx-p1-g1795773600250-u85f5cf58e37dae82""#)
        #expect(EntityTag.digest("dev:alice") == 0x85f5cf58e37dae82, "FNV-1a: the same in every gateway")
        #expect(edition.hasSameVersions(as: Self.timeline(state: 3, metrics: 7, profile: 1, generatedAt: "2026-11-27T11:00:00.000Z", validUntil: nil)))
        #expect(!edition.hasSameVersions(as: noMetrics))
        #expect(GatewayAPI.cacheControl(edition, now: Date(timeIntervalSince1970: 1_795_773_600)) == "private, max-age=300")
        #expect(GatewayAPI.cacheControl(noMetrics, now: Date()) == "private, no-cache")
    }

    @Test func aTagIsCurrentWithTheEditionsVersionsBuiltSinceItsContentStarts() throws {
        let edition = Self.timeline(state: 3, profile: 1, generatedAt: "2026-11-27T10:05:00.000Z", validUntil: "2026-11-27T10:10:00.000Z")
        let copy = try #require(EntityTag(#"W/"s3-mx-p1-g1795773660000-u85f5cf58e37dae82""#), "built at 10:01")
        #expect(EntityTag(copy.text) == copy && copy.text == #""s3-mx-p1-g1795773660000-u85f5cf58e37dae82""#)
        #expect(copy.shows(edition, of: "dev:alice", since: nil), "an edition that changed versions: any build of them shows it")
        #expect(!copy.shows(edition, of: "dev:bob", since: nil), "another user's timeline of the same versions")
        #expect(!copy.shows(edition, of: "dev:alice", since: ISO8601DateFormatter().date(from: "2026-11-27T10:05:00Z")), "a refresh at 10:05: a copy of 10:01 is stale")
        #expect(!EntityTag(Self.timeline(state: 2, profile: 1, generatedAt: "2026-11-27T10:06:00.000Z", validUntil: nil), user: "dev:alice").shows(edition, of: "dev:alice", since: nil))
        #expect(GatewayAPI.tags(#""x", W/"s3-mx-p1-g1795773660000-u85f5cf58e37dae82", *"#) == [copy], "what is not a tag of this API is skipped")
        for bad in ["", "*", #""s3-mx-p1""#, #""s3-m-p1-g1""#, "s3-mx-p1-g1", #""s-1-mx-p1-g1""#, #""s3-mx-p1-g1""#, #""s3-mx-p1-g1-u12""#, #""s3-mx-p1-g1-uu85F5CF58E37DAE82""#] {
            #expect(EntityTag(bad) == nil, "\(bad)")
        }
    }

    @Test func anEventStreamPositionIsEpochDashSequenceAndNothingElse() {
        let position = EventStreamPosition(SequencePosition(epoch: "00ff00ff00ff00ff", sequence: 42))
        #expect(position.text == "00ff00ff00ff00ff-42")
        #expect(EventStreamPosition(text: position.text) == position)
        for bad in ["", "00ff00ff00ff00ff", "00FF00FF00FF00FF-1", "00ff-1", "00ff00ff00ff00ff--1", "00ff00ff00ff00ff-+1", "00ff00ff00ff00ff-1-2", "00ff00ff00ff00ff-99999999999999999999999"] {
            #expect(EventStreamPosition(text: bad) == nil, "\(bad)")
        }
    }

    @Test func theDateHeaderIsAnIMFFixdateInGMT() {
        #expect(HTTPDate.text(of: Date(timeIntervalSince1970: 784_111_777)) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.text(of: Date(timeIntervalSince1970: 1_798_761_599.9)) == "Thu, 31 Dec 2026 23:59:59 GMT")
        #expect(HTTPDate.text(of: Date(timeIntervalSince1970: -1)) == "Wed, 31 Dec 1969 23:59:59 GMT")
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        var generator = SystemRandomNumberGenerator()
        // Leap days, century years and the turn of each year among them.
        let instants = [951_782_400, 951_868_800, 1_709_164_800, 4_107_542_399] + (0..<2_000).map { _ in Int.random(in: 0..<4_102_444_800, using: &generator) }
        for seconds in instants {
            let date = Date(timeIntervalSince1970: TimeInterval(seconds))
            #expect(HTTPDate.text(of: date) == formatter.string(from: date), "\(seconds)")
        }
    }

    @Test func eachBusErrorHasTheStatusItsCodeMeans() {
        func status(_ code: ErrorCode) -> Int { Problem(ErrorBody(code: code, message: "m")).status.code }
        #expect(status(.badJSON) == 400 && status(.invalidField) == 400 && status(.unknownType) == 400 && status(.missingField) == 400)
        #expect(status(.payloadTooLarge) == 413)
        #expect(status(.idReused) == 409)
        #expect(status(.unavailable) == 503)
        #expect(Problem(ErrorBody(code: .unavailable, message: "m")).headers[.retryAfter] == "1")
        #expect(status(.internalError) == 500)
        for code in ErrorCode.widgetRuleCodes.values.flatMap({ $0 }) + [.invalidTimeZone, .invalidPushToken] {
            #expect(status(code) == 422, "\(code)")
        }
    }

    /// A change of `kind` to `state`, at position `state` of epoch `e`.
    static func change(_ kind: WidgetKind, state: Int, at generatedAt: String, sequence: Int? = nil) -> LiveTimeline {
        LiveTimeline(
            user: "u", kind: kind, version: timeline(state: state, profile: 0, generatedAt: generatedAt, validUntil: nil),
            position: SequencePosition(epoch: "e", sequence: UInt64(sequence ?? state)), frame: Data("\(kind.rawValue)-\(state)\n".utf8))
    }

    @Test func changesAtOnePositionCarryOneIdAfterTheLastOfThem() {
        // A catch-up of two widgets a snapshot brought (both at 3), then a live change at 7.
        let frames = LiveTimeline.frames([
            Self.change(.tensionCheck, state: 1, at: "2026-11-27T10:00:00.000Z", sequence: 3),
            Self.change(.jitter, state: 2, at: "2026-11-27T10:00:00.000Z", sequence: 3),
            Self.change(.dietProgress, state: 4, at: "2026-11-27T10:00:01.000Z", sequence: 7),
        ])
        #expect(String(buffer: frames) == "TensionCheckWidget-1\nid: e-3\nJitterWidget-2\nid: e-7\nDietProgressWidget-4\n")
    }

    /// Counts a stream's wake-ups, as the connection writing it would be woken.
    final class Wakes: Sendable {
        private let count = Mutex(0)
        var total: Int { count.withLock { $0 } }
        func wake() { count.withLock { $0 += 1 } }
    }

    @Test func aLiveStreamKeepsTheNewestOfEachKindAndNeverGoesBack() {
        let stream = LiveStream(user: "u", serial: 0)
        stream.offer(Self.change(.tensionCheck, state: 1, at: "2026-11-27T10:00:00.000Z"))
        stream.offer(Self.change(.tensionCheck, state: 2, at: "2026-11-27T10:00:01.000Z"))
        stream.offer(Self.change(.jitter, state: 5, at: "2026-11-27T10:00:02.000Z"))
        stream.offer(Self.change(.tensionCheck, state: 1, at: "2026-11-27T10:00:00.000Z"))
        let first = stream.take()
        #expect(first.changes.map { String(decoding: $0.frame, as: UTF8.self) } == ["TensionCheckWidget-2\n", "JitterWidget-5\n"])
        #expect(!first.heartbeat && !first.ended)
        stream.offer(Self.change(.tensionCheck, state: 2, at: "2026-11-27T10:00:01.000Z"))  // written already
        stream.beat()
        let second = stream.take()
        #expect(second.changes.isEmpty && second.heartbeat, "nothing new: a heartbeat's turn")
        stream.close()
        stream.offer(Self.change(.jitter, state: 6, at: "2026-11-27T10:00:03.000Z"))
        let last = stream.take()
        #expect(last.ended && last.changes.isEmpty, "a closed stream ends and takes no change")
    }

    @Test func aStreamWakesItsWriterOnceUntilItTakes() {
        let stream = LiveStream(user: "u", serial: 0)
        stream.offer(Self.change(.jitter, state: 1, at: "2026-11-27T10:00:00.000Z"))
        let wakes = Wakes()
        stream.attach { wakes.wake() }
        #expect(wakes.total == 1, "a change held before the writer attached wakes it at once")
        stream.offer(Self.change(.jitter, state: 2, at: "2026-11-27T10:00:01.000Z"))
        stream.beat()
        #expect(wakes.total == 1, "woken and not yet taken: no second wake-up")
        #expect(stream.take().changes.map(\.version.state) == [2])
        stream.beat()
        #expect(wakes.total == 2)
        // A change written with the heartbeat due shows the stream alive: no heartbeat after it.
        stream.offer(Self.change(.jitter, state: 3, at: "2026-11-27T10:00:02.000Z"))
        let next = stream.take()
        #expect(next.changes.count == 1 && !next.heartbeat)
        #expect(!stream.take().heartbeat, "that beat was spent")
        stream.close()
        #expect(wakes.total == 3, "the end wakes it too")
    }

    @Test func requestsMatchTheirOperationAsTheRouterMatchesThemAndOnlyEventStreamsLast() {
        func operation(_ method: HTTPRequest.Method, _ path: String) -> APIOperation? {
            APIOperation.of(Request(head: HTTPRequest(method: method, scheme: "https", authority: "gateway", path: path), body: .init(buffer: ByteBuffer())))
        }
        #expect(operation(.get, "/v1/events")?.lasts == true)
        #expect(operation(.get, "//v1/events/?after=1")?.lasts == true, "empty segments skipped, the query no part of the path")
        #expect(operation(.get, "/v1/widgets/JitterWidget/timeline")?.name == "GET /v1/widgets/{kind}/timeline")
        #expect(operation(.get, "/v1/widgets/JitterWidget/timeline")?.lasts == false)
        #expect(operation(.get, "/healthz")?.name == "GET /healthz")
        #expect(operation(.post, "/v1/events") == nil, "no route takes it")
        func mayLast(_ method: HTTPRequest.Method, _ path: String) -> Bool {
            APIOperation.mayLast(HTTPRequest(method: method, scheme: "https", authority: "gateway", path: path))
        }
        #expect(mayLast(.get, "/v1/events") && mayLast(.get, "//v1/events/?after=1#top") && mayLast(.get, "/v1/events?next=/a/b"))
        #expect(!mayLast(.get, "/v1/widgets/JitterWidget/timeline") && !mayLast(.post, "/v1/events") && !mayLast(.get, "/v1/events/more"))
    }

    @Test func liveStreamsHandAChangeOnlyToItsUsersStreamsAndTheNewestWinsPastTheLimit() throws {
        let streams = LiveStreams()
        let first = try #require(streams.open(user: "alice", atMost: 2))
        let alice = try #require(streams.open(user: "alice", atMost: 2))
        let bob = try #require(streams.open(user: "bob", atMost: 2))
        let third = try #require(streams.open(user: "alice", atMost: 2))
        #expect(first.isClosed && !alice.isClosed && !third.isClosed, "past 2, the oldest is closed")
        #expect(streams.count == 3)
        var change = Self.change(.dietProgress, state: 1, at: "2026-11-27T10:00:00.000Z")
        change.user = "alice"
        streams.deliver([change])
        #expect(alice.take().changes.count == 1)
        #expect(third.take().changes.count == 1)
        #expect(bob.take().changes.isEmpty, "not bob's change")
        // Four streams opened, dealt round two slices: bob's (the third) is in slice 0, alice's
        // (the second) in slice 1.
        streams.beat(slice: 0, of: 2)
        #expect(bob.take().heartbeat)
        #expect(!alice.take().heartbeat, "that beat was not hers")
        streams.remove(alice)
        #expect(streams.count == 2 && alice.isClosed)
    }

    @Test func stoppingEndsEveryStreamAndOpensNoMore() throws {
        let streams = LiveStreams()
        let open = try #require(streams.open(user: "alice", atMost: 8))
        streams.closeAll()
        #expect(open.take().ended)
        #expect(streams.open(user: "bob", atMost: 8) == nil, "a client reconnecting while the gateway stops is refused")
        #expect(streams.count == 0)
    }
}
