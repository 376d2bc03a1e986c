import BusRuntime
import Foundation
import Metrics
import Observability
import ServiceLifecycle
import Synchronization
import WidgetDomain

/// One open event stream: the changes to its user's widgets not yet written to it. It keeps the
/// newest change of each widget kind, never a queue: a client that reads slowly gets the latest
/// timeline of each widget when it catches up, and costs at most one timeline per kind however
/// much changes meanwhile. A change older than one already written is dropped, so a stream never
/// goes back to a timeline it has shown (a catch-up fetched while events flow may arrive after
/// a newer event).
///
/// No task waits on a stream: whoever writes it (``EventStreamChannelHandler``, on its
/// connection's event loop) ``attach(_:)``es a wake-up, called once when there is something to
/// write — a change, a heartbeat, the end — and again only after the writer has ``take()``n it.
/// An idle stream is then a few hundred bytes, which bounds how many a gateway holds.
final class LiveStream: Sendable {
    private struct State {
        var pending: [WidgetKind: LiveTimeline] = [:]
        var written: [WidgetKind: TimelineVersion] = [:]
        var heartbeatDue = false
        var closed = false
        var wake: (@Sendable () -> Void)?
        /// The writer was woken and has not taken yet: later news needs no second wake-up.
        var woken = false

        /// The wake-up to call now, if the writer is attached and not already woken.
        mutating func wakeOnce() -> (@Sendable () -> Void)? {
            guard let wake, !woken else { return nil }
            woken = true
            return wake
        }
    }

    /// What to write now: the changes in the order they happened (their event ids), a heartbeat
    /// when there are none and one is due, and whether the stream has ended (after them).
    struct Next {
        var changes: [LiveTimeline]
        var heartbeat: Bool
        var ended: Bool
    }

    let user: String
    /// Its place in the order streams opened: which of the heartbeat's slices it is in.
    let serial: Int
    private let state = Mutex(State())

    init(user: String, serial: Int) {
        self.user = user
        self.serial = serial
    }

    /// Adds `change` unless the stream already holds or wrote a timeline at least as new.
    func offer(_ change: LiveTimeline) {
        let wake: (@Sendable () -> Void)? = state.withLock { state in
            guard !state.closed else { return nil }
            if let held = state.pending[change.kind]?.version ?? state.written[change.kind], !change.version.isNewer(than: held) {
                return nil
            }
            state.pending[change.kind] = change
            return state.wakeOnce()
        }
        wake?()
    }

    /// A heartbeat is due: the next ``take()`` asks for one unless it has changes to write.
    func beat() {
        let wake: (@Sendable () -> Void)? = state.withLock { state in
            guard !state.closed else { return nil }
            state.heartbeatDue = true
            return state.wakeOnce()
        }
        wake?()
    }

    /// Ends the stream: the next ``take()`` says so, and nothing is offered after.
    func close() {
        let wake: (@Sendable () -> Void)? = state.withLock { state in
            state.closed = true
            return state.wakeOnce()
        }
        wake?()
    }

    /// Makes `wake` the stream's wake-up, called at once if there is something to write already
    /// (a catch-up, a close).
    func attach(_ wake: @escaping @Sendable () -> Void) {
        let now: (@Sendable () -> Void)? = state.withLock { state in
            state.wake = wake
            state.woken = false
            return state.closed || state.heartbeatDue || !state.pending.isEmpty ? state.wakeOnce() : nil
        }
        now?()
    }

    /// What to write now (``Next``); the writer is woken again for whatever comes after.
    func take() -> Next {
        state.withLock { state in
            state.woken = false
            let changes = state.pending.values.sorted { $0.position.sequence < $1.position.sequence }
            for change in changes { state.written[change.kind] = change.version }
            state.pending.removeAll(keepingCapacity: true)
            // What is written now shows the stream alive as a heartbeat would.
            let heartbeat = changes.isEmpty && state.heartbeatDue
            state.heartbeatDue = false
            return Next(changes: changes, heartbeat: heartbeat, ended: state.closed)
        }
    }

    var isClosed: Bool { state.withLock { $0.closed } }
}

/// Every open event stream, by user: where the bus thread hands each change, and only to the
/// streams of the user it belongs to.
final class LiveStreams: Sendable {
    private let openStreams = Gauge(MetricCatalog.gatewayEventStreams)

    /// Each user's streams, oldest first; nil once the gateway is stopping (``closeAll()``).
    private let streams = Mutex<[String: [LiveStream]]?>([:])
    private let opened = Atomic<Int>(0)

    /// Opens a stream for `user`, which receives every change published from now on. When the
    /// user already holds `limit`, the oldest of them is closed: the newest wins, as a client that
    /// reconnects is usually the one whose old stream the gateway has not yet seen go.
    /// nil once the gateway is stopping: a client that reconnects then is answered `503`.
    func open(user: String, atMost limit: Int) -> LiveStream? {
        let stream = LiveStream(user: user, serial: opened.wrappingAdd(1, ordering: .relaxed).oldValue)
        let (opened, evicted): (Bool, LiveStream?) = streams.withLock { streams in
            guard streams != nil else { return (false, nil) }
            var held = streams![user, default: []]
            held.append(stream)
            let oldest = held.count > limit ? held.removeFirst() : nil
            streams![user] = held
            return (true, oldest)
        }
        guard opened else { return nil }
        evicted?.close()
        openStreams.record(count)
        return stream
    }

    func remove(_ stream: LiveStream) {
        stream.close()
        streams.withLock { streams in
            streams?[stream.user]?.removeAll { $0 === stream }
            if streams?[stream.user]?.isEmpty == true { streams?[stream.user] = nil }
        }
        openStreams.record(count)
    }

    /// Ends every stream and opens none from now on: the gateway is stopping.
    func closeAll() {
        let all = streams.withLock { streams in
            defer { streams = nil }
            return streams.map { Array($0.values.joined()) } ?? []
        }
        for stream in all { stream.close() }
        openStreams.record(0)
    }

    /// Hands each change to its user's streams.
    func deliver(_ changes: [LiveTimeline]) {
        for change in changes {
            let targets = streams.withLock { $0?[change.user] ?? [] }
            for stream in targets { stream.offer(change) }
        }
    }

    /// Gives the streams of one slice their heartbeat (``LiveStream/beat()``). Streams are dealt
    /// round `slices` in the order they opened, so a beat wakes one slice of them, and a change
    /// published meanwhile waits behind a few heartbeats' writes rather than every stream's.
    func beat(slice: Int, of slices: Int) {
        let due = streams.withLock { $0?.values.joined().filter { $0.serial % slices == slice } ?? [] }
        for stream in due { stream.beat() }
    }

    var count: Int { streams.withLock { $0?.values.reduce(0) { $0 + $1.count } ?? 0 } }

}

/// Every `interval`, each event stream gets a heartbeat, so proxies and clients see it live:
/// one timer for every stream rather than one each, as an idle stream's memory is what bounds how
/// many a gateway holds. The interval is split into ``slices`` turns, each beating one slice of
/// the streams: 10,000 streams are not all written at the same instant. When the gateway stops,
/// it ends every stream (``LiveStreams/closeAll()``): listed after the HTTP server, it stops
/// first, so the server's connections are done with their streams when it waits for them.
struct LiveStreamHeartbeat: Service {
    static let slices = 150

    let streams: LiveStreams
    let interval: Duration

    func run() async {
        await cancelWhenGracefulShutdown {
            let turn = interval / Self.slices
            var slice = 0
            var due = ContinuousClock.now + turn
            while (try? await Task.sleep(until: due, clock: .continuous)) != nil {
                streams.beat(slice: slice, of: Self.slices)
                slice = (slice + 1) % Self.slices
                due += turn
            }
        }
        streams.closeAll()
    }
}
