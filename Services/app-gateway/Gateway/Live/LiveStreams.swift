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
final class LiveStream: Sendable {
    private struct State {
        var pending: [WidgetKind: LiveTimeline] = [:]
        var written: [WidgetKind: TimelineVersion] = [:]
        /// The one reader's wait for a change, a heartbeat or the end.
        var waiter: CheckedContinuation<Void, Never>?
        /// A heartbeat came while the reader was not waiting: its next wait ends at once.
        var beatMissed = false
        var closed = false
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
        let waiter: CheckedContinuation<Void, Never>? = state.withLock { state in
            guard !state.closed else { return nil }
            if let held = state.pending[change.kind]?.version ?? state.written[change.kind], !change.version.isNewer(than: held) {
                return nil
            }
            state.pending[change.kind] = change
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// The changes to write now, in the order they happened (their event ids), once there are
    /// any; empty when a heartbeat is due (``beat()``) or the stream was closed. One reader calls
    /// it at a time. Cancelling the reader closes the stream: nothing else may be left to wake it.
    func next() async -> [LiveTimeline] {
        if let changes = takePending() { return changes }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLock { state in
                    if state.closed || !state.pending.isEmpty { return true }
                    if state.beatMissed {
                        state.beatMissed = false
                        return true
                    }
                    state.waiter = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            close()
        }
        return takePending() ?? []
    }

    /// A heartbeat is due: the reader's wait ends now, or its next one at once.
    func beat() {
        let waiter: CheckedContinuation<Void, Never>? = state.withLock { state in
            guard let waiter = state.waiter else {
                state.beatMissed = true
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Ends the stream: ``next()`` returns at once from now on.
    func close() {
        let waiter: CheckedContinuation<Void, Never>? = state.withLock { state in
            state.closed = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    var isClosed: Bool { state.withLock { $0.closed } }

    private func takePending() -> [LiveTimeline]? {
        state.withLock { state in
            guard !state.pending.isEmpty else { return nil }
            // What is written now shows the stream alive as a heartbeat would.
            state.beatMissed = false
            let changes = state.pending.values.sorted { $0.position.sequence < $1.position.sequence }
            for change in changes { state.written[change.kind] = change.version }
            state.pending.removeAll(keepingCapacity: true)
            return changes
        }
    }
}

/// Every open event stream, by user: where the bus thread hands each change, and only to the
/// streams of the user it belongs to.
final class LiveStreams: Sendable {
    private let openStreams = Gauge(MetricCatalog.gatewayEventStreams)

    /// Each user's streams, oldest first.
    private let streams = Mutex([String: [LiveStream]]())
    private let opened = Atomic<Int>(0)

    /// Opens a stream for `user`, which receives every change published from now on. When the
    /// user already holds `limit`, the oldest of them is closed: the newest wins, as a client that
    /// reconnects is usually the one whose old stream the gateway has not yet seen go.
    func open(user: String, atMost limit: Int) -> LiveStream {
        let stream = LiveStream(user: user, serial: opened.wrappingAdd(1, ordering: .relaxed).oldValue)
        let evicted: LiveStream? = streams.withLock { streams in
            var held = streams[user, default: []]
            held.append(stream)
            let oldest = held.count > limit ? held.removeFirst() : nil
            streams[user] = held
            return oldest
        }
        evicted?.close()
        openStreams.record(count)
        return stream
    }

    func remove(_ stream: LiveStream) {
        stream.close()
        streams.withLock { streams in
            streams[stream.user]?.removeAll { $0 === stream }
            if streams[stream.user]?.isEmpty == true { streams[stream.user] = nil }
        }
        openStreams.record(count)
    }

    /// Hands each change to its user's streams.
    func deliver(_ changes: [LiveTimeline]) {
        for change in changes {
            let targets = streams.withLock { $0[change.user] ?? [] }
            for stream in targets { stream.offer(change) }
        }
    }

    /// Gives the streams of one slice their heartbeat (``LiveStream/beat()``). Streams are dealt
    /// round `slices` in the order they opened, so a beat wakes one slice of them, and a change
    /// published meanwhile waits behind a few heartbeats' writes rather than every stream's.
    func beat(slice: Int, of slices: Int) {
        let due = streams.withLock { $0.values.joined().filter { $0.serial % slices == slice } }
        for stream in due { stream.beat() }
    }

    var count: Int { streams.withLock { $0.values.reduce(0) { $0 + $1.count } } }

}

/// Every `interval`, each event stream gets a heartbeat, so proxies and clients see it live:
/// one timer for every stream rather than one each, as an idle stream's memory is what bounds how
/// many a gateway holds. The interval is split into ``slices`` turns, each beating one slice of
/// the streams: 10,000 streams are not all written at the same instant.
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
    }
}
