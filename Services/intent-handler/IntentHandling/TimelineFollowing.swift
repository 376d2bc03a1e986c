import BusRuntime
import Foundation
import Metrics
import Observability
import ServiceSupport
import WidgetBusProtocol

/// How far timeline-service is behind intent-handler's state events, followed through its
/// heartbeats (``HeartbeatBody/follows``), and, while it is too far, why intents are held.
///
/// Why the one service that writes holds back for one that follows: under overload on shared
/// cores timeline-service gets less CPU than its events need, and what it has not taken waits in
/// libzmq's queues, which grow with the offered load and take as long to drain once the load
/// drops. Holding intents while it is behind keeps that backlog within the longest lag (or
/// ``fewestEventsBehind``, if that is more); the intents held wait in the admission's queue,
/// bounded in time and bytes. Owned by the bus's thread.
final class TimelineFollowing {
    /// How many events behind timeline-service must be, beside the longest lag, for intents to be
    /// held: about half a second of intents at 2,000 a second, a backlog of about a megabyte
    /// that costs nothing — so a moment's stall of timeline-service at a light load holds nothing.
    static let fewestEventsBehind: UInt64 = 1_000

    private var lag: FollowerLag
    private let codec: WireCodec
    /// `widgetbus_follower_lag_seconds{follower}`, by the follower's name.
    private var gauges: [String: Gauge] = [:]
    /// `widgetbus_intents_held`, and whether it says held.
    private let heldGauge = Gauge(MetricCatalog.intentsHeld)
    private var held = false

    /// Follows the heartbeats published at `endpoint` on `bus`, measuring lags in the stream of
    /// `publisher` in `epoch`, which stands at `lastSequence`.
    init(
        bus: Bus, endpoint: String, publisher: String, epoch: String, lastSequence: UInt64, longestLag: TimeInterval
    ) throws {
        lag = FollowerLag(
            publisher: publisher, epoch: epoch, lastSequence: lastSequence, longestLag: longestLag, fewestEventsBehind: Self.fewestEventsBehind)
        codec = bus.codec
        try bus.subscribe(to: endpoint, topics: [Topic.heartbeat]) { [unowned self, clock = bus.clock] frames in
            heard(frames, at: clock.now)
        }
    }

    /// Notes that every sequence up to `sequence` was published by `now`.
    func published(through sequence: UInt64, at now: Date) {
        lag.published(through: sequence, at: now)
    }

    /// Why intents are held at `now`: the follower furthest behind, when it is too far; nil otherwise.
    func holdReason(at now: Date) -> String? {
        let behind = lag.tooFarBehind(at: now)
        if (behind != nil) != held {
            held.toggle()
            heldGauge.record(held ? 1 : 0)
        }
        return behind.map {
            "\($0.follower) is \(Int($0.lag * 1000)) ms and \($0.events) events behind the state events"
        }
    }

    private func heard(_ frames: [Data], at now: Date) {
        guard frames.count == 2, let beat = try? codec.decode(Envelope<HeartbeatBody>.self, from: frames[1]).body else { return }
        lag.heard(beat, at: now)
        let gauge = gauges[beat.publisher] ?? Gauge(MetricCatalog.followerLag, ["follower": beat.publisher])
        gauges[beat.publisher] = gauge
        gauge.record(lag.lag(of: beat.publisher, at: now) ?? 0)
    }
}
