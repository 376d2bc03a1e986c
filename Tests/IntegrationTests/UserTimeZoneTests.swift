import Foundation
import Testing
import WidgetBusProtocol
import WidgetDomain

/// A user's time zone is set by an app message, validated, committed and published to every
/// derived reader.
@Suite(.serialized)
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
        usleep(500_000)
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

    @Test(arguments: ["Mars/Olympus_Mons", "", "../../etc/localtime", "GMT+25"])
    func anUnknownZoneIsRefused(zone: String) throws {
        let bus = try BusFixture()
        try bus.start(.intentHandler)
        let result = try bus.sendRaw("SetTimeZone", user: "pat", body: #"{"timeZone":"\#(zone)"}"#)
        #expect(result.status == 1)
        #expect(try bus.codec.decode(Envelope<ErrorBody>.self, from: result.stdoutData).body.code == .invalidTimeZone)
    }
}
