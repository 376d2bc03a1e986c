import BusRuntime
import Foundation
import Logging
import Observability
import WidgetBusProtocol
import WidgetDomain

/// Everything a widget shows — intent-handler's states and metrics-ingest's aggregates — as the
/// two replicas timeline-service keeps, and the timelines built from them: the only place a
/// timeline is derived (snapshot-writer writes the bytes timeline-service publishes).
///
/// A kind is *ready* once every replica it is built from has synced: the state replica for
/// every kind, the metrics replica too for a kind that shows metrics. Before that its timeline
/// would show the initial state, zone UTC or no measurements — older than what was shown before a
/// restart — so a kind that is not ready has no widgets, changes or timelines here, and all of
/// its widgets are reported changed at the moment it becomes ready. Owned by one thread.
public final class WidgetReplicas {
    public let state: StateReplica
    public let metrics: MetricsReplica

    /// What the replicas changed since the last ``takeChanges()``.
    private final class Pending {
        var state: [StateReplica.Change] = []
        var metrics: [MetricsReplica.Change] = []
    }

    private let pending = Pending()
    /// The kinds that were ready at the last ``takeChanges()``.
    private var readyKinds: Set<WidgetKind> = []
    private let logger: Logger

    public init(
        bus: Bus, stateEventsEndpoint: String, stateSnapshotEndpoint: String, metricsEventsEndpoint: String,
        metricsSnapshotEndpoint: String, logger: Logger
    ) throws {
        self.logger = logger
        let pending = pending
        state = try StateReplica(
            bus: bus, eventsEndpoint: stateEventsEndpoint, snapshotEndpoint: stateSnapshotEndpoint, logger: logger
        ) { pending.state += $0 }
        metrics = try MetricsReplica(
            bus: bus, eventsEndpoint: metricsEventsEndpoint, snapshotEndpoint: metricsSnapshotEndpoint, logger: logger
        ) { pending.metrics += $0 }
    }

    /// Where each replica that follows its owner at `now` stands in its stream
    /// (``SequencedReplica/followingPosition(at:)``), for the heartbeats of a service that derives
    /// from them: its owners hold their intake back while it is behind.
    public func followedPositions(at now: Date) -> [FollowedPosition] {
        [(BusEndpoint.stateEvents.owner, state.followingPosition(at: now)), (BusEndpoint.metricsEvents.owner, metrics.followingPosition(at: now))]
            .compactMap { owner, position in position.map { FollowedPosition(publisher: owner, epoch: $0.epoch, sequence: $0.sequence) } }
    }

    /// Re-syncs of either replica so far: a reader re-checks what it derived after each.
    public var snapshotCount: Int { state.snapshotCount + metrics.snapshotCount }

    /// Whether `kind`'s timelines can be built: every replica it needs has synced at least once.
    public func isReady(_ kind: WidgetKind) -> Bool {
        state.snapshotCount > 0 && (!kind.showsMetrics || metrics.snapshotCount > 0)
    }

    /// The widgets whose timeline changed since the last call, each once in first-seen order, with
    /// the message behind its latest change: a burst of changes to one widget collapses into its
    /// newest version. Only ready kinds are reported; a kind that became ready reports every
    /// widget it has.
    public func takeChanges() -> [(widget: UserWidget, cause: Cause?)] {
        let ready = Set(WidgetKind.allCases.filter(isReady))
        let newlyReady = ready.subtracting(readyKinds)
        readyKinds = ready
        defer { (pending.state, pending.metrics) = ([], []) }
        return widgets(affectedBy: pending.state, pending.metrics, newlyReady: newlyReady)
    }

    /// The timeline of `kind` for `user` as of `now`, in the user's zone, with their metrics for
    /// a kind that shows them (``WidgetState/timeline(for:now:timeZone:metrics:)``); a user with
    /// no state gets the initial state's (version 0), one never measured no metrics (version 0),
    /// one who never set a zone UTC (profile version 0).
    public func timeline(kind: WidgetKind, user: String, now: Date) -> TimelineBody {
        let record = state.record(user: user, app: kind.app)
        let measured = kind.showsMetrics ? metrics.record(user: user) : nil
        let profile = state.profiles[user]
        return TimelineBody(
            kind: kind, user: user, stateVersion: record?.version ?? 0,
            metricsVersion: kind.showsMetrics ? measured?.version ?? 0 : nil, profileVersion: profile?.version ?? 0,
            timeZone: profile?.timeZone ?? UserProfile.defaultTimeZone, generatedAt: now,
            timeline: (record?.state ?? .initial(for: kind.app)).timeline(
                for: kind, now: now, timeZone: state.timeZone(user: user), metrics: measured?.aggregate))
    }

    /// Whether `kind` is ready and `user` has anything it shows: a state of its app, or metrics
    /// for a kind that shows them.
    public func hasContent(user: String, kind: WidgetKind) -> Bool {
        isReady(kind)
            && (state.record(user: user, app: kind.app) != nil || (kind.showsMetrics && metrics.record(user: user) != nil))
    }

    /// Every widget of a ready kind with content: each kind of every state, and the metrics
    /// kinds of every measured user.
    public var allWidgets: [UserWidget] {
        var seen = Set<UserWidget>()
        let widgets = state.states.keys.flatMap { Self.widgets(user: $0.user, app: $0.app) }
            + metrics.records.keys.flatMap(Self.metricsWidgets(user:))
        return widgets.filter { isReady($0.kind) && seen.insert($0).inserted }
    }

    /// The widgets of ready kinds the changes affect, and every widget of `newlyReady` kinds. A
    /// state change affects its app's kinds, a profile change every widget of its user, a
    /// metrics change the kinds that show metrics.
    func widgets(
        affectedBy stateChanges: [StateReplica.Change], _ metricsChanges: [MetricsReplica.Change],
        newlyReady: Set<WidgetKind> = []
    ) -> [(widget: UserWidget, cause: Cause?)] {
        var causes: [UserWidget: Cause?] = [:]
        var order: [UserWidget] = []
        // A widget changed several times is named for its latest cause; an earlier cause with a
        // trace says so under its trace, so no trace ends unseen here.
        func touch(_ widgets: [UserWidget], _ cause: Cause?) {
            for widget in widgets where isReady(widget.kind) {
                guard let earlier = causes.updateValue(cause, forKey: widget) else {
                    order.append(widget)
                    continue
                }
                if let trace = earlier?.trace {
                    logger.debug(
                        "timeline change coalesced into a later one",
                        metadata: .traced(trace, ["widgetbus.topic": "\(Topic.timeline(kind: widget.kind, user: widget.user))"]))
                }
            }
        }
        for change in stateChanges {
            switch change {
            case .state(let record, let cause):
                touch(Self.widgets(user: record.user, app: record.app), cause)
            case .profile(let profile, let cause):
                touch(allWidgets(of: profile.user), cause)
            }
        }
        for change in metricsChanges {
            touch(Self.metricsWidgets(user: change.user), change.cause)
        }
        if !newlyReady.isEmpty {
            touch(allWidgets.filter { newlyReady.contains($0.kind) && causes[$0] == nil }, nil)
        }
        return order.map { ($0, causes[$0] ?? nil) }
    }

    private func allWidgets(of user: String) -> [UserWidget] {
        let widgets = state.records(user: user).flatMap { Self.widgets(user: user, app: $0.app) }
        let measured = metrics.record(user: user) == nil ? [] : Self.metricsWidgets(user: user)
        return widgets + measured.filter { !widgets.contains($0) }
    }

    private static func widgets(user: String, app: WidgetApp) -> [UserWidget] {
        WidgetKind.allCases.filter { $0.app == app }.map { UserWidget(user: user, kind: $0) }
    }

    private static func metricsWidgets(user: String) -> [UserWidget] {
        WidgetKind.allCases.filter(\.showsMetrics).map { UserWidget(user: user, kind: $0) }
    }
}
