import Foundation
import Logging
import ReplicatedWidgets
import Testing
import WidgetBusProtocol
import WidgetDomain
import ZeroMQ

@testable import BusRuntime

/// WidgetReplicas against a scripted intent-handler and a scripted metrics-ingest: a kind is
/// derived only once every replica it is built from has synced.
@Suite(.serialized)
struct WidgetReplicasTests {
    typealias Changed = [(widget: UserWidget, cause: Cause?)]

    func pump(_ bus: Bus, _ replicas: WidgetReplicas, until condition: () -> Bool) throws -> Changed {
        try bus.pump(until: condition)
        return replicas.takeChanges()
    }

    @Test func aKindThatShowsMetricsWaitsUntilBothReplicasHaveSynced() throws {
        let bus = try Bus()
        defer { bus.close() }
        let stateOwner = try StateReplicaTests.ScriptedOwner(context: bus.context)
        let metricsOwner = try MetricsReplicaTests.ScriptedMetricsOwner(context: bus.context)
        defer {
            stateOwner.close()
            metricsOwner.close()
        }
        let replicas = try WidgetReplicas(
            bus: bus, stateEventsEndpoint: stateOwner.eventsEndpoint, stateSnapshotEndpoint: stateOwner.snapshotEndpoint,
            metricsEventsEndpoint: metricsOwner.eventsEndpoint, metricsSnapshotEndpoint: metricsOwner.snapshotEndpoint,
            logger: Logger(label: "test"))
        let ann = [
            StateReplicaTests.ScriptedOwner.record("ann", version: 4),
            StateRecord(user: "ann", app: .stressMonitor, version: 5, state: .initial(for: .stressMonitor)),
        ]

        #expect(try stateOwner.answerSnapshot(SnapshotBody(epoch: stateOwner.epoch, sequence: 5, states: ann)))
        var changed = try pump(bus, replicas) { replicas.state.isSynced }
        #expect(changed.map(\.widget) == [UserWidget(user: "ann", kind: .tensionCheck)])
        #expect(replicas.isReady(.tensionCheck) && !replicas.isReady(.stressMonitor))
        #expect(!replicas.hasContent(user: "ann", kind: .stressMonitor), "before metrics it would show none: older than before")
        #expect(replicas.allWidgets.allSatisfy { !$0.kind.showsMetrics })

        let bob = MetricsRecord(user: "bob", version: 2, aggregate: MetricsReplicaTests.ScriptedMetricsOwner.aggregate(score: 40))
        #expect(try metricsOwner.answerSnapshot(MetricsSnapshotBody(epoch: metricsOwner.epoch, sequence: 2, aggregates: [bob])) != nil)
        changed = try pump(bus, replicas) { replicas.metrics.isSynced }
        #expect(replicas.isReady(.stressMonitor))
        #expect(
            Set(changed.map(\.widget)) == [
                UserWidget(user: "ann", kind: .stressMonitor), UserWidget(user: "bob", kind: .stressMonitor),
            ], "every widget of the kind that became ready: ann's by her state, bob's by his metrics")
        #expect(changed.allSatisfy { $0.cause == nil })
        #expect(replicas.timeline(kind: .stressMonitor, user: "bob", now: Date()).metricsVersion == 2)
    }
}
