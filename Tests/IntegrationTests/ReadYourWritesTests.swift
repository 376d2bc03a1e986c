import BusRuntime
import Foundation
import Testing
import WidgetBusProtocol
import WidgetDomain
import ZeroMQ

/// A client that asks for a timeline at the `version` of its own acknowledged write gets a
/// timeline that shows the write, however far timeline-service lags behind intent-handler; a
/// version that does not come is answered `unavailable` after the bounded wait.
@Suite(.serialized, .blockingThreads)
struct ReadYourWritesTests {
    static let zones = ["Asia/Tokyo", "America/New_York", "Europe/Paris", "Pacific/Chatham"]

    @Test func aTimelineAskedAtAWritesVersionShowsItWhileTimelineServiceLagsBehindABurstOfIntents() throws {
        let bus = try BusFixture()
        // Not held back while timeline-service is stopped, however long a slow machine takes for the burst.
        try bus.start(.intentHandler, extraEnvironment: ["WIDGETBUS_TIMELINE_LONGEST_LAG_MS": "0"])
        let timelineService = try bus.start(.timelineService)
        _ = try bus.tensionTimeline(user: "reader")  // synced with intent-handler
        let context = try ZMQContext()
        defer { context.terminate() }
        let intents = try PipelinedClient(context: context, endpoint: bus.endpoint(.intents), security: nil)
        // Connected before timeline-service stops, so a request sent while it is stopped is
        // there to be read the moment it goes on, beside the events that piled up.
        let timelines = try RawClient(endpoint: bus.endpoint(.timelines))
        _ = try timelines.exchange([Data(RawClient.envelope(type: "Ping", user: nil, body: "{}").utf8)])

        for (round, zone) in Self.zones.enumerated() {
            kill(timelineService.pid, SIGSTOP)
            // A burst of other users' taps: their events wait for timeline-service ahead of the
            // zone change, more than one turn of it takes.
            try intents.exchange(count: 600, window: 64) { index in
                Data(RawClient.envelope(type: "RecordTensionIntent", user: "load-\(index % 40)", body: #"{"level":3}"#).utf8)
            } reply: { _ in }
            var profile: UserProfile?
            try intents.exchange(count: 1, window: 1) { _ in
                Data(RawClient.envelope(type: "SetTimeZone", user: "reader", body: #"{"timeZone":"\#(zone)"}"#).utf8)
            } reply: { profile = try bus.codec.decode(Envelope<UserProfile>.self, from: $0).body }
            let version = try #require(profile?.version)
            try timelines.send([
                Data(RawClient.envelope(type: "TimelineRequest", user: "reader", id: "round-\(round)",
                    body: #"{"kind":"TensionCheckWidget","minimumVersion":\#(version)}"#).utf8)
            ])
            kill(timelineService.pid, SIGCONT)

            let reply = try #require(try timelines.receive()?.first, "round \(round): answered")
            let timeline = try bus.codec.decode(Envelope<DecodedTimelineBody<TensionCheckPhase>>.self, from: reply)
            #expect(timeline.inReplyTo == "round-\(round)")
            #expect(timeline.body.timeZone == zone && timeline.body.profileVersion == version, "round \(round): the zone just set")
        }

        // A version no write has reached yet: `unavailable` once the wait is over.
        let started = ContinuousClock.now
        let unreached = try #require(try timelines.exchange([
            Data(RawClient.envelope(type: "TimelineRequest", user: "reader", body: #"{"kind":"TensionCheckWidget","minimumVersion":1000000000}"#).utf8)
        ])?.first)
        let error = try bus.codec.decode(Envelope<ErrorBody>.self, from: unreached).body
        #expect(error.code == .unavailable && error.message.contains("1000000000"))
        #expect(ContinuousClock.now - started >= .milliseconds(900), "it waited about a second first")
    }

    @Test func widgetctlSendWithATimelinePrintsTheWidgetAsOfTheChange() throws {
        let bus = try BusFixture()
        try bus.start(.intentHandler)
        try bus.start(.timelineService)
        _ = try bus.tensionTimeline(user: "writer")  // synced

        let set = try bus.widgetctl(
            "send", "SetTimeZone", "--user", "writer", "--body", #"{"timeZone":"Asia/Kolkata"}"#, "--timeline", "TensionCheckWidget")
        #expect(set.status == 0, "\(set.stdout) \(set.stderr)")
        try #require(set.lines.count == 2, "the reply, then the timeline: \(set.stdout)")
        let profile = try bus.codec.decode(Envelope<UserProfile>.self, from: Data(set.lines[0].utf8)).body
        let timeline = try bus.codec.decode(DecodedTimelineBody<TensionCheckPhase>.self, from: Data(set.lines[1].utf8))
        #expect(timeline.timeZone == "Asia/Kolkata" && timeline.profileVersion == profile.version)

        let tap = try bus.widgetctl(
            "send", "RecordTensionIntent", "--user", "writer", "--body", #"{"level":7}"#, "--timeline", "TensionCheckWidget")
        try #require(tap.status == 0 && tap.lines.count == 2, "\(tap.stdout) \(tap.stderr)")
        let state = try bus.codec.decode(Envelope<StateRecord>.self, from: Data(tap.lines[0].utf8)).body
        let tapped = try bus.codec.decode(DecodedTimelineBody<TensionCheckPhase>.self, from: Data(tap.lines[1].utf8))
        #expect(tapped.stateVersion == state.version && tapped.entries.first?.content.name == "suggestion")

        // An error reply prints no timeline.
        let refused = try bus.widgetctl(
            "send", "RecordTensionIntent", "--user", "writer", "--body", #"{"level":4}"#, "--timeline", "TensionCheckWidget")
        #expect(refused.status == 1 && refused.lines.count == 1)
    }
}
