import Foundation
import Logging
import Metrics
import Observability
import W3CTraceContext
import WidgetBusProtocol
import ZeroMQ

/// A PUB socket that sends `[topic, envelope]` events and a heartbeat carrying the epoch and the
/// latest sequence once a second, so subscribers also notice a lost *last* event and a restart.
/// A publisher that follows other streams puts its position in each on its heartbeats
/// (`follows`) and beats every ``progressInterval``: its sources hold their intake back while it
/// is behind (``FollowerLag``), and a position a second old would hold them back that much longer.
///
/// PUB drops at its high-water mark by design; the HWM is set high and subscribers rely on
/// sequence numbers, not on delivery. Made by a ``Bus``, which sends the heartbeats; owned by its
/// thread.
public final class EventPublisher {
    public static let heartbeatInterval: TimeInterval = 1
    /// The heartbeat interval of a publisher that reports its position in the streams it follows.
    public static let progressInterval: TimeInterval = 0.1
    public static let sendHighWaterMark: Int32 = 100_000

    private let socket: ZMQSocket
    private let codec: WireCodec
    /// `widgetbus_bus_events_published_total{endpoint}`: events, not heartbeats.
    private let published: Counter
    /// Logs each event at debug level, under the trace it continues.
    private let logger: Logger
    /// The service name heartbeats carry.
    public let name: String
    /// This start's ``PublisherEpoch``: the events published here must carry it too.
    public let epoch: String
    public private(set) var lastSequence: UInt64
    /// When the next heartbeat is due; the first is due at once.
    public private(set) var nextHeartbeat: Date
    /// Where this publisher stands in the streams it follows, asked at each heartbeat; nil for a
    /// publisher that follows none.
    private let follows: (() -> [FollowedPosition])?
    private var interval: TimeInterval { follows == nil ? Self.heartbeatInterval : Self.progressInterval }

    /// A publisher on `socket` (a bound PUB, see ``Bus/publisher(name:epoch:at:lastSequence:follows:)``).
    /// `lastSequence` is where the sequence stands now.
    init(
        name: String, epoch: String, socket: ZMQSocket, endpoint: String, lastSequence: UInt64, follows: (() -> [FollowedPosition])?,
        codec: WireCodec, now: Date
    ) {
        published = Counter(MetricCatalog.busEventsPublished, ["endpoint": endpoint])
        self.name = name
        logger = Logger(label: name)
        self.epoch = epoch
        self.socket = socket
        self.lastSequence = lastSequence
        self.codec = codec
        self.follows = follows
        nextHeartbeat = now
    }

    /// Publishes an event whose body carries `sequence`, in `trace` when its envelope carries one.
    public func publish(topic: String, sequence: UInt64, payload: Data, trace: TraceContext? = nil) throws {
        try socket.send([Data(topic.utf8), payload], dontWait: true)
        published.increment()
        lastSequence = max(lastSequence, sequence)
        logger.debug("event published", metadata: .traced(trace, ["widgetbus.topic": "\(topic)", "widgetbus.sequence": "\(sequence)"]))
    }

    /// Notes that the stream stands at `sequence` although the events up to it were not all
    /// published (committed by a transaction whose answer was lost): heartbeats report it, so
    /// a follower notices the gap and re-syncs instead of waiting for the next event.
    public func advance(to sequence: UInt64) {
        lastSequence = max(lastSequence, sequence)
    }

    /// Sends a heartbeat now and schedules the next one.
    func sendHeartbeat(now: Date) throws {
        let body = HeartbeatBody(publisher: name, epoch: epoch, sequence: lastSequence, follows: follows?())
        let payload = try codec.encode(Envelope(type: MessageType.heartbeat.rawValue, sentAt: now, body: body))
        try socket.send([Data(Topic.heartbeat.utf8), payload], dontWait: true)
        nextHeartbeat = now.addingTimeInterval(interval)
    }
}
