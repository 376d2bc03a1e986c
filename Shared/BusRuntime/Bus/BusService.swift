import Logging
import ServiceLifecycle
import ServiceSupport

/// A service that runs on one ``Bus`` on a thread of its own: every WidgetBus service but
/// sync-agent's scheduler. It declares its sockets, handlers and timers in ``start(on:)``; the bus
/// then runs them until a graceful shutdown (SIGTERM, SIGINT) or cancellation, finishes the
/// batch in hand, runs its stop steps and closes.
public protocol BusService: Service {
    /// The name of the service's thread, as logs and `top -H` show it.
    var name: String { get }
    /// Where its sockets listen; loopback for a service that binds nothing.
    var binding: BusBinding { get }
    /// Declares what the service does on `bus`. Runs on the bus's thread, before the first turn.
    func start(on bus: Bus) throws
}

extension BusService {
    public var binding: BusBinding { .loopback }

    public func run() async throws {
        try await DedicatedThread.run(name: name) { stop in
            let bus = try Bus(binding: binding)
            defer { bus.close() }
            try start(on: bus)
            bus.logNetworkExposure(to: Logger(label: name))
            try bus.run(until: stop)
        }
    }
}
