import ArgumentParser
import BusRuntime
import CommandLineText
import Foundation
import ServiceSupport
import WidgetBusProtocol

struct WatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Print published events (state and timeline) as JSON lines."
    )

    @Option(help: "Only topics starting with this prefix, e.g. 'timeline.TensionCheckWidget.'.")
    var topic: String = ""

    @Option(help: "Exit after this many events.")
    var count: Int?

    @Option(help: "Exit after this many seconds.")
    var seconds: Double?

    @Flag(help: "Also print heartbeats.")
    var heartbeats = false

    /// Subscriptions reach a publisher some time after they are made, and what it publishes
    /// before is not received. A publisher's heartbeat (one a second; timeline-service's ten) is the first sign that its
    /// subscription is in place, so once both publishers' have come, stderr says so: from then on
    /// nothing published is missed.
    static let watchingNotice = "watching: subscribed to intent-handler's and timeline-service's events"

    func run() throws {
        let environment = ProcessInfo.processInfo.environment
        let bus = try Bus(binding: BusBinding(connectingIn: environment))
        defer { bus.close() }
        let stop = StopSignal()
        var printed = 0
        let topics = Topic.heartbeat.hasPrefix(topic) ? [topic] : [topic, Topic.heartbeat]
        let endpoints = [BusEndpoint.stateEvents, .timelineEvents]
        var unheard = Set(endpoints.map(\.variable))
        for endpoint in endpoints {
            try bus.subscribe(to: endpoint.resolve(in: environment), topics: topics) { frames in
                guard frames.count == 2 else { return }
                let isHeartbeat = String(decoding: frames[0], as: UTF8.self) == Topic.heartbeat
                if isHeartbeat, unheard.remove(endpoint.variable) != nil, unheard.isEmpty {
                    Console.error(Self.watchingNotice)
                }
                guard count.map({ printed < $0 }) ?? true, !isHeartbeat || heartbeats else { return }
                Console.line(String(decoding: frames[1], as: UTF8.self))
                printed += 1
                if let count, printed >= count { stop.request() }
            }
        }
        if let seconds {
            let deadline = bus.clock.now.addingTimeInterval(seconds)
            bus.timer(dueAt: { stop.isRequested ? nil : deadline }) { _ in stop.request() }
        }
        if count == 0 { stop.request() }
        try bus.run(until: stop)
    }
}
