import Foundation
import WidgetBusProtocol
import ZeroMQ

/// A PUB socket that sends `[topic, envelope]` events and a heartbeat carrying the epoch and the
/// latest sequence once a second, so subscribers also notice a lost *last* event and a restart.
///
/// PUB drops at its high-water mark by design; the HWM is set high and subscribers rely on
/// sequence numbers, not on delivery. Owned by one thread.
public final class EventPublisher {
    public static let heartbeatInterval: TimeInterval = 1
    public static let sendHighWaterMark: Int32 = 100_000

    private let socket: ZMQSocket
    private let codec: WireCodec
    /// The service name heartbeats carry.
    public let name: String
    /// This start's ``PublisherEpoch``: the events published here must carry it too.
    public let epoch: String
    public private(set) var lastSequence: UInt64
    private var nextHeartbeat = Date()

    /// Binds a publisher at `endpoint`'s port. `lastSequence` is where the sequence stands now.
    public init(
        name: String, epoch: String, context: ZMQContext, bindTo endpoint: String, lastSequence: UInt64, codec: WireCodec
    ) throws {
        self.name = name
        self.epoch = epoch
        socket = try ZMQSocket(context: context, type: .pub)
        try socket.setLinger(milliseconds: 500)
        try socket.setSendHighWaterMark(Self.sendHighWaterMark)
        try socket.bind(BusEndpoint.bindAddress(for: endpoint))
        self.lastSequence = lastSequence
        self.codec = codec
    }

    /// Publishes an event whose body carries `sequence`.
    public func publish(topic: String, sequence: UInt64, payload: Data) throws {
        try socket.send([Data(topic.utf8), payload], dontWait: true)
        lastSequence = max(lastSequence, sequence)
    }

    /// Sends a heartbeat if one is due; returns the milliseconds until the next one.
    @discardableResult
    public func heartbeatIfDue(now: Date = Date()) throws -> Int {
        if now >= nextHeartbeat {
            let payload = try codec.encode(
                Envelope(type: MessageType.heartbeat.rawValue, sentAt: now, body: HeartbeatBody(publisher: name, epoch: epoch, sequence: lastSequence)))
            try socket.send([Data(Topic.heartbeat.utf8), payload], dontWait: true)
            nextHeartbeat = now.addingTimeInterval(Self.heartbeatInterval)
        }
        return max(0, Int(nextHeartbeat.timeIntervalSince(now) * 1000))
    }

    public func close() {
        socket.close()
    }
}
