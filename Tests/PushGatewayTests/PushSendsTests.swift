import Foundation
import ServiceLifecycleTestKit
import Testing
import WidgetBusProtocol

@testable import BusRuntime
@testable import PushGateway

/// The sends off the bus thread: each push submitted is sent by a child task of the service's run
/// and its outcome posted to the bus; a stop ends the run, cancelling what is still being sent.
@Suite("Push sends", .timeLimit(.minutes(1)))
struct PushSendsTests {
    static func push(_ token: String) -> OutgoingPush {
        OutgoingPush(token: token, environment: .production, helpsUntil: nil)
    }

    /// Answers every push at once, delivered; one whose task is already cancelled, not delivered.
    struct Delivering: PushSender {
        var topic: String? { "app.widgets" }
        func send(_ push: OutgoingPush) async -> PushOutcome { Task.isCancelled ? .retry(reason: "cancelled", after: nil) : .delivered }
    }

    /// ``PushSends/waitUntilNone(timeout:)`` from a thread of its own, as the bus thread calls it.
    static func waitUntilNone(_ sends: PushSends) async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread {
                sends.waitUntilNone(timeout: .seconds(30))
                done.resume()
            }.start()
        }
    }

    /// Says when a send started, and answers only once its task is cancelled.
    struct Hanging: PushSender {
        let started: AsyncStream<String>.Continuation
        var topic: String? { "app.widgets" }
        func send(_ push: OutgoingPush) async -> PushOutcome {
            started.yield(push.token)
            try? await Task.sleep(for: .seconds(3_600))  // ends when the task is cancelled
            return Task.isCancelled ? .retry(reason: "cancelled", after: nil) : .delivered
        }
    }

    @Test func everyPushSubmittedIsSentAndItsOutcomePosted() async throws {
        let sends = try PushSends(sender: Delivering())
        await testGracefulShutdown { stop in
            await withDiscardingTaskGroup { group in
                group.addTask { await sends.run() }
                for token in ["aa", "bb", "cc"] { sends.submit(Self.push(token)) }
                await Self.waitUntilNone(sends)
                stop.triggerGracefulShutdown()
            }
        }
        let outcomes = sends.outcomes.take()
        #expect(outcomes.map(\.token).sorted() == ["aa", "bb", "cc"])
        #expect(outcomes.allSatisfy { $0.outcome == .delivered })
        #expect(sends.inFlight == 0)
    }

    @Test func aPushSubmittedOnceTheRunHasEndedIsDroppedAndNotCountedInFlight() async throws {
        let sends = try PushSends(sender: Delivering())
        await testGracefulShutdown { stop in
            stop.triggerGracefulShutdown()
            await sends.run()
        }
        sends.submit(Self.push("aa"))
        #expect(sends.inFlight == 0)
        #expect(sends.outcomes.take().isEmpty)
    }

    @Test func aSendStillRunningWhenTheServiceStopsIsCancelledAndItsOutcomeStillPosted() async throws {
        let (started, starting) = AsyncStream<String>.makeStream()
        let sends = try PushSends(sender: Hanging(started: starting))
        await testGracefulShutdown { stop in
            await withDiscardingTaskGroup { group in
                group.addTask { await sends.run() }
                sends.submit(Self.push("aa"))
                var startedSends = started.makeAsyncIterator()
                #expect(await startedSends.next() == "aa")
                #expect(sends.inFlight == 1)
                stop.triggerGracefulShutdown()
            }
        }
        #expect(sends.outcomes.take().map(\.outcome) == [.retry(reason: "cancelled", after: nil)])
        #expect(sends.inFlight == 0)
    }
}
