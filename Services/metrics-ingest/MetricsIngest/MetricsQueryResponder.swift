import BusRuntime
import Foundation
import WidgetBusProtocol

/// Answers the snapshot endpoint — `SnapshotRequest` (Clone-pattern re-sync),
/// `MetricsStatusRequest`, `Ping` — from the ingestor's committed copy. It runs on the ingest
/// thread between messages, so a snapshot always matches the sequence it reports.
struct MetricsQueryResponder {
    let ingestor: MetricsIngestor
    let codec: WireCodec

    func reply(to request: MetricsRequest) throws -> Data {
        switch request.body {
        case .ping:
            return try codec.reply(to: request.id, user: request.user, type: .pong, body: EmptyBody())
        case .status:
            return try codec.reply(to: request.id, user: request.user, type: .metricsStatusReply, body: ingestor.status)
        case .snapshot(let prefix):
            let aggregates = ingestor.records.values
                .filter { Topic.metrics(user: $0.user).hasPrefix(prefix) }
                .sorted { $0.user < $1.user }
            return try codec.reply(
                to: request.id, user: nil, type: .metricsSnapshotReply,
                body: MetricsSnapshotBody(epoch: ingestor.epoch, sequence: ingestor.sequence, aggregates: aggregates))
        case .notServed:
            return codec.notServedReply(to: request, "by metrics-ingest")
        }
    }
}
