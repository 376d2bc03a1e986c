import BusRuntime
import Foundation
import ServiceLifecycle
import ServiceSupport
import Synchronization

/// Sends pushes off the bus thread, each as a child task of this service's run, and posts every
/// outcome to the bus through `outcomes`. The bus thread decides how many may be in flight
/// (``inFlight``): a restart with many pushes due does not start them all at once, and the APNs
/// client's queue stays short of its request timeout.
///
/// It runs before push-gateway's bus in the service group, so it stops after it: the bus's stop
/// waits a moment for the answers in flight (``waitUntilNone(timeout:)``) and commits them. When
/// this service stops, a send still unanswered is cancelled and a push not yet started is not
/// sent: the store has both in flight, and the restart sends them again.
final class PushSends: Service, @unchecked Sendable {
    struct Outcome: Sendable {
        var token: String
        var outcome: PushOutcome
        var seconds: Double
    }

    private let sender: any PushSender
    /// Where the outcomes go: the bus that receives from it takes them, and closes it when it
    /// closes (a post after that is dropped, as the bus would never read it).
    let outcomes: BusMailbox<Outcome>
    private let queue: AsyncStream<OutgoingPush>
    private let queued: AsyncStream<OutgoingPush>.Continuation
    private let condition = NSCondition()
    /// Pushes submitted and not yet answered. Guarded by `condition`.
    private var running = 0
    /// Set when the service stops: pushes still queued are dropped, not sent.
    private let stopping = Atomic<Bool>(false)

    init(sender: any PushSender) throws {
        self.sender = sender
        outcomes = try BusMailbox()
        (queue, queued) = AsyncStream.makeStream()
    }

    /// The `apns-topic` of the pushes it sends; nil when it sends none.
    var topic: String? { sender.topic }

    /// Pushes submitted and not yet answered.
    var inFlight: Int {
        condition.withLock { running }
    }

    /// Sends `push` as soon as the service's run takes it; once the run has ended it is dropped.
    func submit(_ push: OutgoingPush) {
        condition.withLock { running += 1 }
        if case .terminated = queued.yield(push) { finished() }
    }

    /// Returns once every push submitted is answered, or after `timeout`.
    func waitUntilNone(timeout: Duration) {
        let deadline = Date().addingTimeInterval(timeout.asSeconds)
        condition.lock()
        defer { condition.unlock() }
        while running > 0, condition.wait(until: deadline) {}
    }

    func run() async {
        await withDiscardingTaskGroup { group in
            await withGracefulShutdownHandler {
                for await push in queue {
                    guard !stopping.load(ordering: .acquiring) else {
                        finished()
                        continue
                    }
                    group.addTask { [sender, outcomes] in
                        let start = ContinuousClock.now
                        let outcome = await sender.send(push)
                        outcomes.post(Outcome(token: push.token, outcome: outcome, seconds: (ContinuousClock.now - start).asSeconds))
                        self.finished()
                    }
                }
            } onGracefulShutdown: { [self] in
                stopping.store(true, ordering: .releasing)
                queued.finish()
            }
            group.cancelAll()
        }
    }

    private func finished() {
        condition.withLock {
            running -= 1
            condition.broadcast()
        }
    }
}
