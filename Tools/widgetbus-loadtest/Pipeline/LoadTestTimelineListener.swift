import BusRuntime
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

/// Subscribes to timeline-service's publisher on a bus of its own thread and logs every timeline
/// event of this run's users, timestamped as its turn takes it off the socket. Only the first kind
/// of each app is subscribed (`LoadWidget.timelineKind`), so the publisher filters the rest.
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
    init(endpoint: String, userPrefix: String) {
        let thread = Thread { [self] in
            do {
                try listen(endpoint: endpoint, userPrefix: userPrefix)
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

    private func listen(endpoint: String, userPrefix: String) throws {
        let bus = try Bus(binding: BusBinding(connectingIn: ProcessInfo.processInfo.environment))
        defer { bus.close() }
        let prefixes = LoadWidget.allCases.map { widget in
            (prefix: Data(Topic.timeline(kind: widget.timelineKind, user: userPrefix).utf8), app: widget.app)
        }
        var batch: [TimelineArrival] = []
        var undecodable = 0
        try bus.subscribe(to: endpoint, topics: prefixes.map { String(decoding: $0.prefix, as: UTF8.self) }) { frames in
            // Read only the fields the load test needs: a full decode would take the cores it is
            // measuring.
            let at = ContinuousClock.now
            guard frames.count == 2, let match = prefixes.first(where: { frames[0].starts(with: $0.prefix) }),
                let user = Int(String(decoding: frames[0].dropFirst(match.prefix.count), as: UTF8.self)),
                let body = JSONFieldScanner(frames[1]).object("body"),
                let stateVersion = body.object("timeline")?.unsignedInteger("stateVersion")
            else {
                undecodable += 1
                return
            }
            batch.append(
                TimelineArrival(
                    at: at, key: UserApp(user: user, app: match.app), stateVersion: stateVersion, causedBy: body.string("causedBy")))
        }
        // What a turn took is logged at once, under one lock.
        bus.afterMessages { [self] _ in
            guard !batch.isEmpty || undecodable > 0 else { return }
            log.withLock { log in
                log.undecodable += undecodable
                for arrival in batch {
                    log.arrivals.append(arrival)
                    log.latest[arrival.key] = max(log.latest[arrival.key, default: 0], arrival.stateVersion)
                }
            }
            batch.removeAll(keepingCapacity: true)
            undecodable = 0
        }
        try bus.run(until: stopSignal)
    }
}
