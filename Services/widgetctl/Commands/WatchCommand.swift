import ArgumentParser
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

    func run() throws {
        let environment = ProcessInfo.processInfo.environment
        let bus = try Bus(binding: BusBinding(connectingIn: environment))
        defer { bus.close() }
        let stop = StopSignal()
        var printed = 0
        let topics = heartbeats && !Topic.heartbeat.hasPrefix(topic) ? [topic, Topic.heartbeat] : [topic]
        for endpoint in [BusEndpoint.stateEvents, .timelineEvents] {
            try bus.subscribe(to: endpoint.resolve(in: environment), topics: topics) { frames in
                guard frames.count == 2, count.map({ printed < $0 }) ?? true else { return }
                if String(decoding: frames[0], as: UTF8.self) == Topic.heartbeat, !heartbeats { return }
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
