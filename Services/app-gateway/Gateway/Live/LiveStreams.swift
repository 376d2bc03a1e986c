import Foundation
import Metrics
import ServiceSupport
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
        /// The one reader's wait, with the number of that wait (its timer wakes only that one).
        var waiter: (wait: UInt64, continuation: CheckedContinuation<Void, Never>)?
        var waits: UInt64 = 0
        /// The last wait whose timer ran out.
        var timedOut: UInt64 = 0
        var closed = false
    }

    let user: String
    private let state = Mutex(State())

    init(user: String) {
        self.user = user
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
            return state.waiter?.continuation
        }
        waiter?.resume()
    }

    /// The changes to write now, in the order they happened (their event ids), once there are any; empty when `timeout` passes
    /// first (time for a heartbeat) or the stream was closed. One reader calls it at a time.
    func next(timeout: Duration) async -> [LiveTimeline] {
        if let changes = takePending() { return changes }
        let wait = state.withLock { state in
            state.waits += 1
            return state.waits
        }
        let timer = Task { [self] in
            try? await Task.sleep(for: timeout)
            let waiter: CheckedContinuation<Void, Never>? = state.withLock { state in
                state.timedOut = wait
                guard state.waiter?.wait == wait else { return nil }
                defer { state.waiter = nil }
                return state.waiter?.continuation
            }
            waiter?.resume()
        }
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { state in
                if state.closed || !state.pending.isEmpty || state.timedOut >= wait { return true }
                state.waiter = (wait, continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
        timer.cancel()
        return takePending() ?? []
    }

    /// Ends the stream: ``next(timeout:)`` returns at once from now on.
    func close() {
        let waiter: CheckedContinuation<Void, Never>? = state.withLock { state in
            state.closed = true
            defer { state.waiter = nil }
            return state.waiter?.continuation
        }
        waiter?.resume()
    }

    var isClosed: Bool { state.withLock { $0.closed } }

    private func takePending() -> [LiveTimeline]? {
        state.withLock { state in
            guard !state.pending.isEmpty else { return nil }
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

    /// Opens a stream for `user`, which receives every change published from now on. When the
    /// user already holds `limit`, the oldest of them is closed: the newest wins, as a client that
    /// reconnects is usually the one whose old stream the gateway has not yet seen go.
    func open(user: String, atMost limit: Int) -> LiveStream {
        let stream = LiveStream(user: user)
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

    var count: Int { streams.withLock { $0.values.reduce(0) { $0 + $1.count } } }

}
