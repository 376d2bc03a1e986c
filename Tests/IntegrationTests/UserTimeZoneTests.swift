import Foundation
import Testing
import WidgetBusProtocol
import WidgetDomain

/// A user's time zone is set by an app message, validated, committed and published to every
/// derived reader.
@Suite(.serialized, .blockingThreads)
struct UserTimeZoneTests {
    @Test func settingAZoneIsCommittedPublishedAndIdempotent() throws {
        let bus = try BusFixture()
        try bus.start(.intentHandler)
        try bus.start(.timelineService)
        let record = try bus.send(.recordTension, user: "olga", body: #"{"level":3}"#)
        _ = try bus.tensionTimeline(user: "olga", atLeastVersion: record.version)

        let watcher = try ServiceProcess(
            name: "watch", executable: BusFixture.productsDirectory.appendingPathComponent("widgetctl"),
            environment: bus.environment, logDirectory: bus.root,
            arguments: ["watch", "--count", "2", "--seconds", "10"])
        try bus.waitUntil("widgetctl watch is subscribed", timeout: 10) { watcher.log.contains("watching: subscribed") }
        let set = try bus.sendRaw("SetTimeZone", user: "olga", body: #"{"timeZone":"Asia/Tokyo"}"#, id: "tz-1")
        #expect(set.status == 0)
        let profile = try bus.codec.decode(Envelope<UserProfile>.self, from: set.stdoutData)
        #expect(profile.type == "ProfileReply")
        #expect(profile.body.timeZone == "Asia/Tokyo")
        #expect(profile.body.version == record.version + 1)

        try bus.waitUntil("watch sees the profile change and the republished timeline", timeout: 10) { !watcher.isRunning }
        let types = watcher.output.split(separator: "\n").compactMap {
            try? bus.codec.decode(EnvelopeHeader.self, from: Data($0.utf8)).type
        }
        #expect(Set(types) == ["ProfileChanged", "TimelineChanged"])

        let again = try bus.sendRaw("SetTimeZone", user: "olga", body: #"{"timeZone":"Asia/Tokyo"}"#)
        #expect(try bus.codec.decode(Envelope<UserProfile>.self, from: again.stdoutData).body.version == profile.body.version,
                "setting the same zone again changes nothing")
    }

    /// A backward-compatible link is accepted, kept as given, and gives the same timelines as the
    /// zone it links to.
    @Test(arguments: [("US/Eastern", "America/New_York"), ("Asia/Calcutta", "Asia/Kolkata"), ("NZ-CHAT", "Pacific/Chatham")])
    func aLinkComputesAsItsZone(link: String, zone: String) throws {
        let bus = try BusFixture()
        try bus.start(.intentHandler)
        try bus.start(.timelineService)
        var timelines: [String: [String: Any]] = [:]
        for (user, identifier) in [("link", link), ("zone", zone)] {
            let set = try bus.sendRaw("SetTimeZone", user: user, body: #"{"timeZone":"\#(identifier)"}"#)
            #expect(set.status == 0, "\(identifier): \(set.stdout) \(set.stderr)")
            #expect(try bus.codec.decode(Envelope<UserProfile>.self, from: set.stdoutData).body.timeZone == identifier, "kept as given")
            let goals = try bus.send(.updateGoals, user: user, body: #"{"calorieTarget":2000}"#)
            try bus.waitUntil("\(user)'s Diet timeline at version \(goals.version)", timeout: 10) {
                let reply = try bus.widgetctl("timeline", "DietProgressWidget", "--user", user)
                guard reply.status == 0, let body = try JSONSerialization.jsonObject(with: reply.stdoutData) as? [String: Any],
                    (body["stateVersion"] as? Int).map({ $0 >= Int(goals.version) }) == true
                else { return false }
                timelines[user] = body
                return true
            }
        }
        #expect(timelines["link"]?["timeZone"] as? String == link)
        // Diet has an entry at the user's next local midnight: the first with the next day's key.
        let midnights = try ["link", "zone"].map { user in
            let entries = try #require(timelines[user]?["entries"] as? [[String: Any]])
            let today = entries.first?["dayKey"] as? String
            let midnight = try #require(entries.first { $0["dayKey"] as? String != today }, "\(user): a midnight entry")
            return try JSONSerialization.data(withJSONObject: midnight, options: [.sortedKeys])
        }
        #expect(midnights[0] == midnights[1], "\(link) and \(zone) reach local midnight at the same instant, on the same day")
    }

    @Test(arguments: ["Mars/Olympus_Mons", "", "../../etc/localtime", "GMT+25", "GMT+5", "UTC+3"])
    func anUnknownZoneIsRefused(zone: String) throws {
        let bus = try BusFixture()
        try bus.start(.intentHandler)
        let result = try bus.sendRaw("SetTimeZone", user: "pat", body: #"{"timeZone":"\#(zone)"}"#)
        #expect(result.status == 1)
        #expect(try bus.codec.decode(Envelope<ErrorBody>.self, from: result.stdoutData).body.code == .invalidTimeZone)
    }
}
