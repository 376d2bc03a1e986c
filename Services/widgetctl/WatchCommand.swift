import ArgumentParser
import Foundation
import ServiceSupport
import WidgetBusProtocol
import ZeroMQ

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
        let socket = try ZMQSocket(context: try ZMQContextHolder.shared, type: .sub)
        defer { socket.close() }
        try socket.setLinger(milliseconds: 0)
        try socket.subscribe(topic)
        if heartbeats, !Topic.heartbeat.hasPrefix(topic) { try socket.subscribe(Topic.heartbeat) }
        try socket.connect(BusEndpoint.stateEvents.resolve(in: environment))
        try socket.connect(BusEndpoint.timelineEvents.resolve(in: environment))

        let deadline = seconds.map { Date().addingTimeInterval($0) }
        var printed = 0
        while count.map({ printed < $0 }) ?? true {
            let wait = deadline.map { Int(max(0, $0.timeIntervalSinceNow) * 1000) } ?? 1_000
            if let deadline, Date() >= deadline { break }
            guard try ZMQPoller.isReadable(socket, waitingMilliseconds: min(wait, 1_000)), let frames = try socket.receiveMessage(),
                frames.count == 2
            else { continue }
            let topicText = String(decoding: frames[0], as: UTF8.self)
            if topicText == Topic.heartbeat, !heartbeats { continue }
            printLine(String(decoding: frames[1], as: UTF8.self))
            printed += 1
        }
    }
}
