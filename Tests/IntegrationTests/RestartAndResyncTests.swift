import Foundation
import Testing
import WidgetBusProtocol
import WidgetDomain
import ZeroMQ

/// Nothing acknowledged is lost across restarts and crashes, and no subscriber is left stale.
@Suite(.serialized, .blockingThreads)
struct RestartAndResyncTests {
    @Test(arguments: ["SIGTERM", "SIGKILL"])
    func stateSurvivesARestartOfIntentHandler(signal: String) throws {
        let bus = try BusFixture()
        try bus.start(.intentHandler)
        try bus.send(.recordTension, user: "gina", body: #"{"level":3}"#)
        let suggested = try bus.send(.recordTension, user: "gina", body: #"{"level":10}"#)
        guard case .tensionCheck(let state) = suggested.state, case .suggestion(_, let checkIn) = state.phase else {
            Issue.record("expected a suggestion")
            return
        }

        if signal == "SIGKILL" {
            bus.kill9(.intentHandler)
        } else {
            #expect(bus.stop(.intentHandler) == 0, "SIGTERM must end intent-handler with status 0")
        }
        try bus.start(.intentHandler)

        #expect(try bus.pendingRecords(user: "gina").count == 2)
        let done = try bus.send(.markInterventionDone, user: "gina", body: #"{"checkInId":"\#(checkIn.id)"}"#)
        #expect(done.version == suggested.version + 1, "the sequence continues across the restart")
        guard case .tensionCheck(let doneState) = done.state, case .completed = doneState.phase else {
            Issue.record("the suggestion did not survive the restart")
            return
        }
    }

    @Test func aLateStartedTimelineServiceServesTheCurrentState() throws {
        let bus = try BusFixture()
        try bus.start(.intentHandler)
        let record = try bus.send(.recordTension, user: "hank", body: #"{"level":7}"#)
        try bus.send(.recordTension, user: "ivy", body: #"{"level":0}"#)

        try bus.start(.timelineService)
        let timeline = try bus.tensionTimeline(user: "hank", atLeastVersion: record.version)
        #expect(timeline.stateVersion == record.version)
        guard case .suggestion = timeline.entries.first?.content else {
            Issue.record("late timeline-service does not show hank's suggestion: \(timeline)")
            return
        }
    }

    @Test func timelineServiceFollowsIntentHandlerThroughACrash() throws {
        let bus = try BusFixture()
        try bus.start(.intentHandler)
        try bus.start(.timelineService)
        try bus.send(.recordTension, user: "jack", body: #"{"level":7}"#)

        bus.kill9(.intentHandler)
        try bus.start(.intentHandler)
        let reset = try bus.send(.resetWidget, user: "jack")

        let timeline = try bus.tensionTimeline(user: "jack", atLeastVersion: reset.version)
        #expect(timeline.entries.map(\.content) == [.picker])
    }

    @Test func timelineServiceStopsCleanlyOnSIGTERM() throws {
        let bus = try BusFixture()
        try bus.start(.intentHandler)
        try bus.start(.timelineService)
        #expect(bus.stop(.timelineService) == 0)
        #expect(bus.stop(.intentHandler) == 0)
    }

    @Test func widgetctlGivesUpWithAClearMessageWhenNothingAnswers() throws {
        let bus = try BusFixture()
        let started = Date()
        let result = try bus.widgetctl("send", "RecordTensionIntent", "--user", "kim", "--body", #"{"level":3}"#,
                                       "--timeout", "200", "--attempts", "3")
        #expect(result.status == 2)
        #expect(result.stderr.contains("no reply from \(bus.endpoint(.intents)) after 3 attempt(s)"))
        #expect(Date().timeIntervalSince(started) < 5)
    }

    @Test func aRequestSentBeforeIntentHandlerStartsIsAnsweredByTheRetry() throws {
        let bus = try BusFixture()
        // A socket stands where intent-handler will listen and takes widgetctl's first attempt
        // without answering it, so the reply can only come from a retry.
        let standIn = try ZMQContext()
        let firstAttempt = try ZMQSocket(context: standIn, type: .router)
        try firstAttempt.setLinger(milliseconds: 0)
        try firstAttempt.bind(bus.endpoint(.intents))
        let sender = try ServiceProcess(
            name: "send", executable: BusFixture.productsDirectory.appendingPathComponent("widgetctl"),
            environment: bus.environment, logDirectory: bus.root,
            arguments: ["send", "RecordTensionIntent", "--user", "lee", "--body", #"{"level":3}"#,
                        "--timeout", "700", "--attempts", "30"])  // 21 s: longer than intent-handler may take to start
        let sent = try ZMQPoller.isReadable(firstAttempt, waitingMilliseconds: 10_000)
        firstAttempt.close()
        standIn.terminate()  // returns once the stand-in's listener is closed, so the port is free
        #expect(sent, "widgetctl's first attempt never came")
        try bus.start(.intentHandler)
        try bus.waitUntil("widgetctl send exits", timeout: 10) { !sender.isRunning }
        #expect(sender.output.contains(#""type":"StateReply""#))
        #expect(try bus.pendingRecords(user: "lee").count == 1)
    }
}
