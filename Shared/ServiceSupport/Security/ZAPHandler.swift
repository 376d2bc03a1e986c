import Foundation
import Logging
import Metrics
import WidgetBusProtocol
import ZeroMQ

/// The ZAP handler (ZeroMQ RFC 27) of one ``Bus``'s context: every CURVE server socket of the
/// bus asks it, at `inproc://zeromq.zap.01`, whether a client that completed the handshake may
/// connect, and it answers from ``BusSecurity``'s allow-list of that socket's endpoint (the
/// request's domain). A refused client gets nothing through: libzmq closes its connection.
///
/// Each refused handshake is counted by endpoint in `widgetbus_curve_refusals_total` (a refused
/// client's reconnects count too), and each refused key is logged once per endpoint (its public
/// key only, never a secret). New keys cost an attacker nothing, so at most ``maxLoggedKeys`` are remembered and logged;
/// past them one line says so and the rest are only counted. Owned by the bus's thread.
final class ZAPHandler {
    static let endpoint = "inproc://zeromq.zap.01"
    static let maxLoggedKeys = 1_000

    private let security: BusSecurity
    private let logger: Logger
    /// `widgetbus_curve_refusals_total{endpoint}`, by ZAP domain (the endpoint's variable).
    private var refusals: CounterFamily<String>
    private var logged: Set<String> = []
    /// Whether the line saying that no more keys are logged was written.
    private var saidLoggingStopped = false

    init(security: BusSecurity, logger: Logger) {
        self.security = security
        self.logger = logger
        // The ZAP domain is the endpoint's variable (``BusSecurity/domain(of:)``).
        refusals = CounterFamily { domain in
            Counter(MetricCatalog.curveRefusals, ["endpoint": BusEndpoint.all.first { $0.variable == domain }?.name ?? domain])
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
            refusals.increment(domain)
            let who = key ?? "a client without CURVE"
            if logged.count < Self.maxLoggedKeys {
                if logged.insert("\(domain) \(who)").inserted {
                    logger.warning(
                        "connection refused: key not allowed on this endpoint",
                        metadata: [
                            "widgetbus.endpoint": "\(domain)", "widgetbus.client_key": "\(who)", "widgetbus.mechanism": "\(mechanism)",
                            "widgetbus.address": "\(String(decoding: frames[3], as: UTF8.self))",
                        ])
                }
            } else if !saidLoggingStopped {
                saidLoggingStopped = true
                logger.warning(
                    "more refused keys than are logged: the rest are only counted", metadata: ["widgetbus.logged_keys": "\(Self.maxLoggedKeys)"])
            }
            return refusal(requestID)
        }
        return [Data("1.0".utf8), requestID, Data("200".utf8), Data("OK".utf8), Data(key.utf8), Data()]
    }

    private func refusal(_ requestID: Data) -> [Data] {
        [Data("1.0".utf8), requestID, Data("400".utf8), Data("not allowed".utf8), Data(), Data()]
    }
}
