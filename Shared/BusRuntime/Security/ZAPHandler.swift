import Foundation
import Logging
import Metrics
import Observability
import WidgetBusProtocol
import ZeroMQ

/// The ZAP handler (ZeroMQ RFC 27) of one ``Bus``'s context: every CURVE server socket of the
/// bus asks it, at `inproc://zeromq.zap.01`, whether a client that completed the handshake may
/// connect, and it answers from ``BusSecurity``'s allow-list of that socket's endpoint (the
/// request's domain). A refused client gets nothing through: libzmq closes its connection.
///
/// It also hears, from the sockets' monitors, of the handshakes libzmq fails before asking it
/// (``handshakeFailed(_:domain:)``), so that every refused handshake leaves a trace, whatever
/// the client got wrong. Each is counted in `widgetbus_curve_refusals_total` by endpoint and
/// ``RefusalReason`` (a refused client's reconnects count too), and logged once: each refused
/// key once per endpoint (its public key only, never a secret), each reason without a key once
/// per endpoint. New keys cost an attacker nothing, so at most ``maxLoggedRefusals`` are
/// remembered and logged; past them one line says so and the rest are only counted. Owned by the
/// bus's thread.
final class ZAPHandler {
    static let endpoint = "inproc://zeromq.zap.01"
    static let maxLoggedRefusals = 1_000

    /// Why a handshake was refused: the `reason` label of `widgetbus_curve_refusals_total`.
    enum RefusalReason: String {
        /// This handler refused the client's key: not on the endpoint's allow-list.
        case keyNotAllowed = "key_not_allowed"
        /// The client offered another mechanism than CURVE (NULL, PLAIN): libzmq refuses it at
        /// the greeting, before any key is seen.
        case mechanismMismatch = "mechanism_mismatch"
        /// The CURVE handshake broke: a client that expects another server key (this server
        /// cannot open its HELLO), or a malformed or forged command.
        case handshakeFailed = "handshake_failed"
        /// The connection ended or timed out before its handshake completed, and libzmq knows
        /// nothing more: a port probe, a client that gave up — or a client without CURVE that
        /// saw the server's mechanism and hung up before the server read its own, as libzmq
        /// clients often do, so that such a client is counted here or as ``mechanismMismatch``.
        case handshakeIncomplete = "handshake_incomplete"

        /// What the log line says of a refusal for this reason.
        var explanation: String {
            switch self {
            case .keyNotAllowed: "key not allowed on this endpoint"
            case .mechanismMismatch: "the client does not use CURVE"
            case .handshakeFailed: "the CURVE handshake failed (a client expecting another server key, or a broken client)"
            case .handshakeIncomplete:
                "the connection ended before its handshake completed (a port probe, a client that gave up, or one without CURVE that hung up first)"
            }
        }
    }

    /// One counter of `widgetbus_curve_refusals_total`.
    private struct RefusalKind: Hashable {
        /// The ZAP domain: the endpoint's variable (``BusSecurity/domain(of:)``).
        let domain: String
        let reason: RefusalReason
    }

    private let security: BusSecurity
    private let logger: Logger
    private var refusals: CounterFamily<RefusalKind>
    /// What was logged: `domain key` for a refused key, `domain reason` for a refusal without one.
    private var logged: Set<String> = []
    /// Whether the line saying that no more refusals are logged was written.
    private var saidLoggingStopped = false

    init(security: BusSecurity, logger: Logger) {
        self.security = security
        self.logger = logger
        refusals = CounterFamily { kind in
            Counter(
                MetricCatalog.curveRefusals,
                ["endpoint": BusEndpoint.all.first { $0.variable == kind.domain }?.name ?? kind.domain, "reason": kind.reason.rawValue])
        }
    }

    /// The reply to one ZAP request's frames; nil for a message that is not one.
    func reply(to frames: [Data]) -> [Data]? {
        // version, request id, domain, address, routing id, mechanism, credentials…
        guard frames.count >= 6, frames[0] == Data("1.0".utf8) else { return nil }
        let requestID = frames[1]
        let domain = String(decoding: frames[2], as: UTF8.self)
        let mechanism = String(decoding: frames[5], as: UTF8.self)
        let key = frames.count == 7 ? CurveKeyPair.z85(frames[6]) : nil
        guard mechanism == "CURVE", let key, security.allows(key, domain: domain) else {
            let who = key ?? "a client without CURVE"
            refused(.keyNotAllowed, domain: domain, subject: who) {
                logger.warning(
                    "connection refused: \(RefusalReason.keyNotAllowed.explanation)",
                    metadata: [
                        "widgetbus.endpoint": "\(domain)", "widgetbus.reason": "\(RefusalReason.keyNotAllowed.rawValue)",
                        "widgetbus.client_key": "\(who)", "widgetbus.mechanism": "\(mechanism)",
                        "widgetbus.address": "\(String(decoding: frames[3], as: UTF8.self))",
                    ])
            }
            return refusal(requestID)
        }
        return [Data("1.0".utf8), requestID, Data("200".utf8), Data("OK".utf8), Data(key.utf8), Data()]
    }

    /// Counts and logs a handshake that a CURVE server socket of `domain` failed before it could
    /// ask this handler, as its monitor reported it (the events of ``monitoredEvents``). The log
    /// line names the address the socket listens on, not the peer's: libzmq's monitor does not
    /// report it.
    func handshakeFailed(_ event: ZMQSocketEvent, domain: String) {
        let reason: RefusalReason
        let detail: String
        if event.event == .handshakeFailedNoDetail {
            reason = .handshakeIncomplete
            detail = String(cString: strerror(Int32(bitPattern: event.value)))
        } else {
            reason = event.isMechanismMismatch ? .mechanismMismatch : .handshakeFailed
            detail = "ZMQ_PROTOCOL_ERROR 0x\(String(event.value, radix: 16))"
        }
        refused(reason, domain: domain, subject: reason.rawValue) {
            logger.warning(
                "connection refused: \(reason.explanation)",
                metadata: [
                    "widgetbus.endpoint": "\(domain)", "widgetbus.reason": "\(reason.rawValue)", "widgetbus.detail": "\(detail)",
                    "widgetbus.listening": "\(event.endpoint)",
                ])
        }
    }

    /// What the monitor of each CURVE server socket reports to ``handshakeFailed(_:domain:)``:
    /// the failures libzmq meets before ZAP. (A refusal of this handler is counted here, not
    /// again as the monitor's `ZMQ_EVENT_HANDSHAKE_FAILED_AUTH`.)
    static let monitoredEvents: ZMQSocketEvents = [.handshakeFailedProtocol, .handshakeFailedNoDetail]

    /// Counts one refusal, and runs `log` the first time `subject` is refused on `domain`, while
    /// fewer than ``maxLoggedRefusals`` have been.
    private func refused(_ reason: RefusalReason, domain: String, subject: String, log: () -> Void) {
        refusals.increment(RefusalKind(domain: domain, reason: reason))
        if logged.count < Self.maxLoggedRefusals {
            if logged.insert("\(domain) \(subject)").inserted { log() }
        } else if !saidLoggingStopped {
            saidLoggingStopped = true
            logger.warning(
                "more refused clients than are logged: the rest are only counted",
                metadata: ["widgetbus.logged_refusals": "\(Self.maxLoggedRefusals)"])
        }
    }

    private func refusal(_ requestID: Data) -> [Data] {
        [Data("1.0".utf8), requestID, Data("400".utf8), Data("not allowed".utf8), Data(), Data()]
    }
}
