import Foundation
import PushGateway
import Testing
import WidgetBusProtocol
import WidgetDomain

/// What counts as a change worth a push: the content a device would show, from the new
/// timeline's build until the old one's reload — read from timelines as timeline-service encodes them.
@Suite("What a timeline shows")
struct ShownTimelineTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    /// A Tension Check timeline built at `generatedAt` showing `phases` from the given offsets,
    /// reloading at `reloadAfter` seconds from the start (never when nil), read back from its wire bytes.
    static func shown(
        generatedAt: TimeInterval = 0, _ phases: [(TimeInterval, TensionCheckPhase)], reloadAfter: TimeInterval? = nil
    ) throws -> ShownTimeline {
        let timeline = Timeline(
            entries: phases.map { TimelineEntry(date: start.addingTimeInterval($0.0), content: $0.1) },
            policy: reloadAfter.map { .after(start.addingTimeInterval($0)) } ?? .never)
        let body = TimelineBody(
            kind: .tensionCheck, user: "ann", stateVersion: 1, timeZone: "UTC", generatedAt: start.addingTimeInterval(generatedAt),
            timeline: .tensionCheck(timeline))
        return try #require(ShownTimeline(timelineBody: JSONFieldScanner(try WireCodec().encode(body))))
    }

    static let done = TensionCheckPhase.completed(interventionName: "Jaw relaxation", checkInId: "c1", resetAt: start.addingTimeInterval(600))

    @Test func entriesAreReadWithTheirDatesAndTheReloadDate() throws {
        let timeline = try Self.shown([(0, Self.done), (600, .picker)], reloadAfter: 900)
        #expect(timeline.entries.map(\.date) == [Self.start, Self.start.addingTimeInterval(600)])
        #expect(timeline.entries[0].content != timeline.entries[1].content)
        #expect(timeline.reloadDate == Self.start.addingTimeInterval(900) && timeline.generatedAt == Self.start)
        #expect(try Self.shown([(5, .picker)]).entries[0].content == timeline.entries[1].content, "the content, not its date")
    }

    @Test func aTimelineBuiltAgainWithTheSameContentIsNoChange() throws {
        let first = try Self.shown([(0, Self.done), (600, .picker)], reloadAfter: 3_600)
        // Rebuilt 5 minutes later: its first entry moved to its own build date, the rest is the same.
        let rebuilt = try Self.shown(generatedAt: 300, [(300, Self.done), (600, .picker)], reloadAfter: 3_600)
        #expect(!first.showsOtherContent(than: rebuilt))
        // Rebuilt after the reset: the picker from its build on, as the first showed then.
        #expect(!first.showsOtherContent(than: try Self.shown(generatedAt: 700, [(700, .picker)], reloadAfter: 3_600)))
    }

    /// `state`'s timeline of `kind` built at `seconds` from the start, as timeline-service publishes it.
    static func built(_ state: WidgetState, _ kind: WidgetKind, at seconds: TimeInterval) throws -> ShownTimeline {
        let now = start.addingTimeInterval(seconds)
        let body = TimelineBody(
            kind: kind, user: "ann", stateVersion: 1, timeZone: "UTC", generatedAt: now, timeline: state.timeline(for: kind, now: now, timeZone: .gmt))
        return try #require(ShownTimeline(timelineBody: JSONFieldScanner(try WireCodec().encode(body))))
    }

    @Test(arguments: WidgetKind.allCases)
    func theSameDataBuiltAgainLaterIsNoChangeForEveryKind(kind: WidgetKind) throws {
        var context = ReduceContext(now: Self.start, timeZone: .gmt, random: RandomSource(SeededRandom(seed: 7)))
        var state = WidgetState.initial(for: kind.app)
        if kind.app == .jitter {  // a drink in progress: entries every 10 s from the build, each with its elapsed time
            state = try state.reduce(.jitter(.startDrink), context: &context).state
        }
        let first = try Self.built(state, kind, at: 1)
        for later in [4.0, 15, 61] where first.reloadDate.map({ Self.start.addingTimeInterval(later) < $0 }) ?? true {
            #expect(!first.showsOtherContent(than: try Self.built(state, kind, at: later)), "\(kind.rawValue) rebuilt at \(later) s")
        }
    }

    @Test func otherContentAtAnyMomentBeforeTheReloadIsAChange() throws {
        let first = try Self.shown([(0, .picker)], reloadAfter: 3_600)
        #expect(first.showsOtherContent(than: try Self.shown(generatedAt: 60, [(60, Self.done), (600, .picker)])), "at once")
        // The same now, another later: a change all the same (the device would show the old one then).
        #expect(first.showsOtherContent(than: try Self.shown(generatedAt: 60, [(60, .picker), (1_800, Self.done)])))
        // The first ends its picker at 1,800 s; the new one does not.
        let ending = try Self.shown([(0, .picker), (1_800, Self.done)], reloadAfter: 3_600)
        #expect(ending.showsOtherContent(than: try Self.shown(generatedAt: 60, [(60, .picker)])))
    }

    @Test func whatDiffersOnlyFromTheOldTimelinesReloadOnIsNoChange() throws {
        let first = try Self.shown([(0, .picker)], reloadAfter: 1_200)
        // The new one differs from 1,200 s on, when the device asks for a new timeline anyway.
        #expect(!first.showsOtherContent(than: try Self.shown(generatedAt: 60, [(60, .picker), (1_200, Self.done)])))
        #expect(first.showsOtherContent(than: try Self.shown(generatedAt: 60, [(60, .picker), (1_199, Self.done)])))
        // Built at or after the reload date (timeline-service's refresh): nothing a push could bring sooner.
        #expect(!first.showsOtherContent(than: try Self.shown(generatedAt: 1_200, [(1_200, Self.done)])))
        // A timeline that never reloads by itself can be changed at any time.
        let forever = try Self.shown([(0, .picker)])
        #expect(forever.showsOtherContent(than: try Self.shown(generatedAt: 86_400, [(86_400, Self.done)])))
    }
}
