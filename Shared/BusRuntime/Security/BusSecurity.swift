import Foundation
import ServiceSupport
import WidgetBusProtocol
import ZeroMQ

/// CURVE on every socket of a service, from the environment: its own key pair, the public keys
/// of the services it connects to, and the allow-lists its endpoints consult (``EndpointAccess``).
///
/// The keys directory (`WIDGETBUS_CURVE_KEYS_DIR`) holds `services/<service>.key` for every
/// service, and a folder of `*.key` files per ``ClientRole`` (`publishers/`, `gateways/`,
/// `operators/`), as pyzmq's `zmq.auth` keeps them. The allow-lists are read at start and again
/// on ``reload()`` (SIGHUP), so a key is let in or shut out without a restart.
/// Owned by the bus's thread.
public final class BusSecurity {
    public static let secretKeyFile = EnvironmentSetting(
        variable: "WIDGETBUS_CURVE_SECRET_KEY_FILE", defaultValue: "none: CURVE off",
        purpose: "this executable's CURVE secret key (a .key_secret certificate or the bare Z85 key); turns CURVE on")
    public static let keysDirectory = EnvironmentSetting(
        variable: "WIDGETBUS_CURVE_KEYS_DIR", defaultValue: "none",
        purpose: "public keys: services/<service>.key, and the allow-lists publishers/, gateways/, operators/ (*.key)")
    public static let settings = [secretKeyFile, keysDirectory]

    /// What the environment says, checked at start: a service's configuration holds it, and
    /// each bus makes its own ``BusSecurity`` from it.
    public struct Settings: Sendable {
        public let keys: CurveKeyPair
        public let directory: URL
        /// Every configured endpoint, by the address it is configured with.
        let endpoints: [String: BusEndpoint]

        /// The settings `environment` asks for; nil when it names neither a secret key nor a
        /// keys directory (CURVE off).
        ///
        /// Half a setup is refused rather than run in plaintext: an operator who gave one of the
        /// two meant CURVE.
        ///
        /// - Throws: ``InvalidSetting`` for one of the two settings without the other, a secret
        ///   key that cannot be read or that its group or others may read, or a keys directory
        ///   that is missing, writable by group or others, or has no service's key in
        ///   `services/`. The allow-lists are checked only where they are served
        ///   (``checkAllowLists()``): a client needs the servers' keys alone.
        public init?(environment: [String: String]) throws(InvalidSetting) {
            let secretKeyFile = BusSecurity.secretKeyFile.variable, keysDirectory = BusSecurity.keysDirectory.variable
            let file = environment[secretKeyFile].flatMap { $0.isEmpty ? nil : $0 }
            let folder = environment[keysDirectory].flatMap { $0.isEmpty ? nil : $0 }
            switch (file, folder) {
            case (nil, nil): return nil
            case (nil, _?):
                throw InvalidSetting(
                    "\(keysDirectory) is set but \(secretKeyFile) is not: CURVE needs this executable's secret key too; "
                        + "refusing to run the bus in plaintext")
            case (_?, nil):
                throw InvalidSetting("\(secretKeyFile) is set but \(keysDirectory) is not: CURVE needs the servers' public keys too")
            case (let file?, let folder?):
                do {
                    keys = try CurveCertificate.keyPair(from: URL(fileURLWithPath: file))
                } catch {
                    throw InvalidSetting("\(secretKeyFile): \(error)")
                }
                directory = URL(fileURLWithPath: folder)
            }
            endpoints = BusEndpoint.byAddress(in: environment)
            do {
                try checkServiceKeys()
            } catch {
                throw InvalidSetting("\(keysDirectory): \(error)")
            }
        }

        /// Refuses a keys directory that is missing or writable by group or others, or whose
        /// `services/` folder holds no key: every client of the bus needs its servers' keys.
        func checkServiceKeys() throws(CurveCertificate.Failure) {
            try CurveCertificate.checkKeyFolder(directory)
            let services = directory.appendingPathComponent("services")
            guard try !CurveCertificate.publicKeys(in: services).isEmpty else {
                throw CurveCertificate.Failure(description: "\(services.path) holds no service's public key (*.key)")
            }
        }

        /// Refuses allow-lists that ``BusSecurity/reload()`` would refuse, for a service that
        /// serves them: read at start, a missing role folder stops it rather than leave it
        /// refusing every client.
        public func checkAllowLists() throws(InvalidSetting) {
            do {
                _ = try BusSecurity(self)
            } catch {
                throw InvalidSetting("\(BusSecurity.keysDirectory.variable): \(error)")
            }
        }

        /// This process's settings (a CLI's: it has no configuration struct to hold them).
        public static func ofThisProcess() throws(InvalidSetting) -> Settings? {
            try Settings(environment: ProcessInfo.processInfo.environment)
        }

        /// The public key a client of `endpoint` expects the server to prove: its owner's.
        public func serverKey(for endpoint: String) throws -> String {
            guard let owner = endpoints[endpoint]?.owner else {
                throw CurveCertificate.Failure(description: "\(endpoint) is not an endpoint of this topology")
            }
            return try serviceKey(owner)
        }

        /// The public key of `service`, from `services/<service>.key`.
        func serviceKey(_ service: String) throws -> String {
            try CurveCertificate.publicKey(from: directory.appendingPathComponent("services/\(service).key"))
        }
    }

    public let settings: Settings
    public var keys: CurveKeyPair { settings.keys }
    public var directory: URL { settings.directory }
    /// The public keys each endpoint lets in, by endpoint variable (the ZAP domain).
    public private(set) var allowed: [String: Set<String>] = [:]

    /// Reads the allow-lists of `settings`.
    public init(_ settings: Settings) throws {
        self.settings = settings
        try reload()
    }

    /// Reads the allow-lists again; when anything is wrong, throws and keeps the lists it had.
    ///
    /// The keys directory and its `services/` folder must exist, `services/` must hold keys, and
    /// every role's folder must exist (it may be empty): a folder that is missing is a
    /// mistake in the deployment, and going on would refuse every client, the allowed ones too.
    /// None of them may be writable by group or others (``CurveCertificate/checkKeyFolder(_:)``).
    public func reload() throws {
        try settings.checkServiceKeys()
        var roles: [ClientRole: Set<String>] = [:]
        for role in ClientRole.allCases {
            roles[role] = try CurveCertificate.publicKeys(in: directory.appendingPathComponent(role.rawValue))
        }
        // Each service's key, read once; one that cannot be read lets that service in nowhere.
        let services = Set(BusEndpoint.all.flatMap { $0.access.services.union([$0.owner]) })
        let serviceKeys = services.reduce(into: [String: String]()) { $0[$1] = try? settings.serviceKey($1) }
        var allowed: [String: Set<String>] = [:]
        for endpoint in BusEndpoint.all {
            let access = endpoint.access
            // Its owner too: a service's health check runs with the service's own key.
            let keys = access.roles.flatMap { roles[$0] ?? [] } + access.services.union([endpoint.owner]).compactMap { serviceKeys[$0] }
            allowed[endpoint.variable] = Set(keys)
        }
        self.allowed = allowed
    }

    /// The ZAP domain of the socket bound at `endpoint`: its variable, so each endpoint is
    /// checked against its own allow-list.
    public func domain(of endpoint: String) -> String {
        settings.endpoints[endpoint]?.variable ?? endpoint
    }

    /// Whether the client whose public key is `key` may connect to the endpoint of `domain`.
    public func allows(_ key: String, domain: String) -> Bool {
        allowed[domain]?.contains(key) ?? false
    }
}

extension ZMQSocket {
    /// Connects to `endpoint`, as a CURVE client of the endpoint's owner with `security`'s keys
    /// when it is set, in the clear otherwise: every client of the bus connects through this.
    public func connect(_ endpoint: String, security: BusSecurity.Settings?) throws {
        if let security { try makeCurveClient(keys: security.keys, serverKey: try security.serverKey(for: endpoint)) }
        try connect(endpoint)
    }
}
