import Foundation
import W3CTraceContext
import WidgetDomain

// MARK: - Samples pushed to WIDGETBUS_METRICS

/// What one pushed sample decoded to: the sample (user id checked), or why it is refused.
public typealias DecodedSample = Result<MetricSample, MetricRejection>

/// A `MetricSample` or `MetricBatch` as metrics-ingest reads it off its PULL socket. The envelope
/// is checked exactly like a request's (with a 1 MiB payload limit); inside it, each sample is
/// decoded on its own, so a malformed one is counted and its neighbours still count.
public struct MetricsPush: Sendable {
    public var id: String
    public var type: MessageType
    public var sentAt: Date
    /// The trace the push belongs to, read like a request's (docs/PROTOCOL.md §4a).
    public var trace: TraceContext?
    /// In the order sent; one element for `MetricSample`.
    public var samples: [DecodedSample]

    /// - Throws: ``ProtocolError`` when the message as a whole is unusable (counted under its code).
    public static func decode(_ payload: Data, codec: WireCodec) throws(ProtocolError) -> MetricsPush {
        let wire = try EndpointRequest<MetricsPushBody>.decode(
            payload, codec: codec, maxPayloadBytes: ProtocolLimits.maxMetricsPayloadBytes)
        return MetricsPush(id: wire.id, type: wire.type, sentAt: wire.sentAt, trace: wire.trace, samples: wire.body.samples)
    }
}

/// The body of `MetricBatch` as a sender writes it.
public struct MetricBatchBody: Codable, Sendable, Equatable {
    public var samples: [MetricSample]
    public init(samples: [MetricSample]) { self.samples = samples }
}

/// The PULL endpoint's catalog: `MetricSample` (body: one sample) and `MetricBatch`
/// (body: `{"samples": [...]}`, at most ``ProtocolLimits/maxBatchSamples``).
struct MetricsPushBody: RequestBodyCatalog {
    var samples: [DecodedSample]

    init(type: MessageType, rawType: String, in container: KeyedDecodingContainer<WireRequestKey>) throws {
        guard container.contains(.body), try !container.decodeNil(forKey: .body) else {
            throw ProtocolError(.missingField, "missing field body")
        }
        switch type {
        case .metricSample:
            samples = [try container.decode(LenientSample.self, forKey: .body).result]
        case .metricBatch:
            samples = try container.decode(LenientBatch.self, forKey: .body).samples
        default:
            throw ProtocolError(.unknownType, "\(rawType) is not accepted on WIDGETBUS_METRICS; push MetricSample or MetricBatch")
        }
    }
}

/// `{"samples": [...]}` whose elements never fail the whole.
private struct LenientBatch: Decodable {
    var samples: [DecodedSample] = []

    private enum CodingKeys: String, CodingKey { case samples }

    init(from decoder: any Decoder) throws {
        var list = try decoder.container(keyedBy: CodingKeys.self).nestedUnkeyedContainer(forKey: .samples)
        if let count = list.count {
            guard count <= ProtocolLimits.maxBatchSamples else {
                throw ProtocolError(.invalidField, "body.samples has \(count) samples; at most \(ProtocolLimits.maxBatchSamples)")
            }
            samples.reserveCapacity(count)
        }
        while !list.isAtEnd {
            samples.append(try list.decode(LenientSample.self).result)
        }
    }
}

/// One sample decoded without throwing: a decoding failure becomes its rejection.
private struct LenientSample: Decodable {
    var result: DecodedSample

    init(from decoder: any Decoder) {
        do {
            let sample = try MetricSample(from: decoder)
            do {
                try ProtocolLimits.validateUser(sample.user)
                result = .success(sample)
            } catch {
                result = .failure(MetricRejection(.invalidUser, error.message))
            }
        } catch let rejection as MetricRejection {
            result = .failure(rejection)
        } catch {
            result = .failure(MetricRejection(.malformedSample, Self.describe(error)))
        }
    }

    /// What is wrong with a sample, in the words a refused request gets.
    private static func describe(_ error: any Error) -> String {
        (error as? DecodingError).map { ProtocolError(decodingError: $0).message } ?? "\(error)"
    }
}

// MARK: - Requests to WIDGETBUS_METRICS_SNAPSHOT

/// A request to metrics-ingest's ROUTER, decoded and validated like any request (same codes).
public typealias MetricsRequest = EndpointRequest<MetricsRequestBody>

/// What metrics-ingest's snapshot endpoint (`WIDGETBUS_METRICS_SNAPSHOT`) serves.
public enum MetricsRequestBody: RequestBodyCatalog, Equatable {
    /// Every aggregate whose topic `metrics.<user>` starts with the prefix, with the sequence.
    case snapshot(topicPrefix: String)
    /// The counters.
    case status
    case ping
    /// A valid request of a type this endpoint does not serve: `unknown_type`, after its body was
    /// checked as on any endpoint (so the validation order is the protocol's).
    case notServed

    public init(type: MessageType, rawType: String, in container: KeyedDecodingContainer<WireRequestKey>) throws {
        switch type {
        case .metricsStatusRequest:
            self = .status
        case .snapshotRequest:
            self = .snapshot(topicPrefix: try container.decode(SnapshotRequestBody.self, forKey: .body).prefix)
        case .ping:
            self = .ping
        default:
            _ = try RequestBody(type: type, rawType: rawType, in: container)
            self = .notServed
        }
    }
}

// MARK: - Replies and events

/// One user's aggregate at a point of metrics-ingest's sequence: snapshot items.
public struct MetricsRecord: Codable, Sendable, Equatable {
    public var user: String
    /// The metrics sequence of the aggregate's last change.
    public var version: UInt64
    public var aggregate: MetricsAggregate

    public init(user: String, version: UInt64, aggregate: MetricsAggregate) {
        self.user = user
        self.version = version
        self.aggregate = aggregate
    }
}

/// `MetricsSnapshotReply`: the aggregates under the requested prefix as of `sequence` in
/// `epoch` (the Clone pattern, as `SnapshotReply` is for state).
public struct MetricsSnapshotBody: Codable, Sendable, Equatable {
    public var epoch: String
    public var sequence: UInt64
    public var aggregates: [MetricsRecord]

    public init(epoch: String, sequence: UInt64, aggregates: [MetricsRecord]) {
        self.epoch = epoch
        self.sequence = sequence
        self.aggregates = aggregates
    }
}

/// `MetricsChanged` (topic `metrics.<user>`): a committed change of one user's aggregate.
/// `sequence` is metrics-ingest's own, gap-free and persisted; it is also the new `version`.
public struct MetricsChangedBody: Codable, Sendable, Equatable {
    public var epoch: String
    public var sequence: UInt64
    /// The `id` of the last pushed message whose samples changed the aggregate, of the messages
    /// committed together.
    public var causedBy: String
    public var user: String
    public var aggregate: MetricsAggregate

    public init(epoch: String, sequence: UInt64, causedBy: String, user: String, aggregate: MetricsAggregate) {
        self.epoch = epoch
        self.sequence = sequence
        self.causedBy = causedBy
        self.user = user
        self.aggregate = aggregate
    }

    public var record: MetricsRecord { MetricsRecord(user: user, version: sequence, aggregate: aggregate) }

    /// In the wire's sorted order: the encoder then writes the aggregate in place instead of copying it
    /// into order afterwards.
    private enum CodingKeys: String, CodingKey { case aggregate, causedBy, epoch, sequence, user }
}

/// `MetricsStatusReply`: what metrics-ingest did with everything pushed to it, since its store
/// was created (persisted: a restart keeps the counts).
public struct MetricsStatusBody: Codable, Sendable, Equatable {
    /// Samples that passed validation and were not duplicates (committed).
    public var accepted: UInt64
    /// Samples of a (user, kind, takenAt) already accepted within the 7-day window: counted once.
    public var duplicates: UInt64
    /// Refused samples by reason code (``MetricRejection/Reason``); reasons never seen are absent.
    public var rejectedSamples: [String: UInt64]
    /// Pushed messages refused as a whole, by protocol error code (`bad_json`, `payload_too_large`, …).
    public var rejectedMessages: [String: UInt64]
    /// The last metrics sequence committed.
    public var sequence: UInt64
    /// Users with an aggregate.
    public var users: Int

    public init(
        accepted: UInt64 = 0, duplicates: UInt64 = 0, rejectedSamples: [String: UInt64] = [:],
        rejectedMessages: [String: UInt64] = [:], sequence: UInt64 = 0, users: Int = 0
    ) {
        self.accepted = accepted
        self.duplicates = duplicates
        self.rejectedSamples = rejectedSamples
        self.rejectedMessages = rejectedMessages
        self.sequence = sequence
        self.users = users
    }

    /// Refused samples of every reason.
    public var rejected: UInt64 { rejectedSamples.values.reduce(0, +) }
}
