import Foundation
import ServiceSupport
import Synchronization
import WidgetBusProtocol
import WidgetDomain
import ZeroMQ

/// One `TimelineChanged` event the load test saw: when, for which user's app, at which state
/// version, and the request id behind it.
struct TimelineArrival: Sendable {
    var at: ContinuousClock.Instant
    var key: UserApp
    var stateVersion: UInt64
    var causedBy: String?
}

/// A simulated user's app: what a state version and a timeline belong to.
struct UserApp: Hashable, Sendable {
    var user: Int
    var app: WidgetApp
}

/// Subscribes to timeline-service's publisher from a thread of its own (the SUB socket is created,
/// used and closed there) and logs every timeline event of this run's users, timestamped on
/// arrival. Only the first kind of each app is subscribed (`LoadWidget.timelineKind`), so the
/// publisher filters the rest.
final class TimelineListener: Sendable {
    private struct Log {
        var arrivals: [TimelineArrival] = []
        var latest: [UserApp: UInt64] = [:]
        var undecodable = 0
        var failure: String?
    }

    private let log = Mutex(Log())
    private let stopSignal = StopSignal()
    private let finished = DispatchSemaphore(value: 0)

    /// Starts listening at `endpoint` for users named `<userPrefix><index>`.
    init(context: ZMQContext, endpoint: String, userPrefix: String) {
        let thread = Thread { [self] in
            do {
                try listen(context: context, endpoint: endpoint, userPrefix: userPrefix)
            } catch {
                log.withLock { $0.failure = "timeline subscriber at \(endpoint): \(error)" }
            }
            finished.signal()
        }
        thread.name = "loadtest-timelines"
        thread.start()
    }

    func stop() {
        stopSignal.request()
        finished.wait()
    }

    /// Every arrival so far, in arrival order.
    var arrivals: [TimelineArrival] { log.withLock { $0.arrivals } }

    var count: Int { log.withLock { $0.arrivals.count } }

    var failure: String? { log.withLock { $0.failure } }

    var undecodable: Int { log.withLock { $0.undecodable } }

    /// Whether, for every key, a timeline at `versions[key]` or later has arrived.
    func hasArrived(_ versions: [UserApp: UInt64]) -> Bool {
        log.withLock { log in versions.allSatisfy { log.latest[$0.key, default: 0] >= $0.value } }
    }

    private func listen(context: ZMQContext, endpoint: String, userPrefix: String) throws {
        let socket = try ZMQSocket(context: context, type: .sub)
        defer { socket.close() }
        try socket.setLinger(milliseconds: 0)
        try socket.setReceiveHighWaterMark(0)  // never drop here: a drop would count as a missing timeline
        try socket.setMaxMessageSize(bytes: ProtocolLimits.maxTransportBytes)
        var prefixes: [(prefix: Data, app: WidgetApp)] = []
        for widget in LoadWidget.allCases {
            let prefix = Topic.timeline(kind: widget.timelineKind, user: userPrefix)
            try socket.subscribe(prefix)
            prefixes.append((Data(prefix.utf8), widget.app))
        }
        try socket.connect(endpoint)

        var received: [(frames: [Data], at: ContinuousClock.Instant)] = []
        while !stopSignal.isRequested {
            guard try ZMQPoller.isReadable(socket, waitingMilliseconds: 50) else { continue }
            // Timestamp every event as it is taken off the socket; read after the batch, only the
            // fields the load test needs (a full decode would take the cores it is measuring).
            received.removeAll(keepingCapacity: true)
            while received.count < 4_096, let frames = try socket.receiveMessage(dontWait: true) {
                received.append((frames, .now))
            }
            var batch: [TimelineArrival] = []
            var undecodable = 0
            for (frames, at) in received {
                guard frames.count == 2, let match = prefixes.first(where: { frames[0].starts(with: $0.prefix) }),
                    let user = Int(String(decoding: frames[0].dropFirst(match.prefix.count), as: UTF8.self)),
                    let body = JSONFieldScanner(frames[1]).object("body"),
                    let stateVersion = body.object("timeline")?.unsignedInteger("stateVersion")
                else {
                    undecodable += 1
                    continue
                }
                batch.append(
                    TimelineArrival(
                        at: at, key: UserApp(user: user, app: match.app), stateVersion: stateVersion,
                        causedBy: body.string("causedBy")))
            }
            log.withLock { log in
                log.undecodable += undecodable
                for arrival in batch {
                    log.arrivals.append(arrival)
                    log.latest[arrival.key] = max(log.latest[arrival.key, default: 0], arrival.stateVersion)
                }
            }
        }
    }
}
