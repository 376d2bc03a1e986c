import Dispatch
import Foundation
import Synchronization

/// SIGHUP for the whole process, set up once: the signal is taken from its default action
/// (which ends the process) and each listener is told when it arrives. libdispatch keeps one
/// handler per signal and process, so a second `signal()` or source for each bus would silence
/// the first; here there is one, whatever the number of buses.
final class HangUpSignal: Sendable {
    static let shared = HangUpSignal()

    private struct State: @unchecked Sendable {
        var source: (any DispatchSourceSignal)?
        var listeners: [Int: @Sendable () -> Void] = [:]
        var nextID = 0
    }

    private let state = Mutex(State())

    /// Makes SIGHUP harmless to this process (the operator's reload signal must not end a
    /// service that has nothing to reload) and starts telling listeners of it.
    func install() {
        state.withLock { state in
            guard state.source == nil else { return }
            signal(SIGHUP, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: SIGHUP)
            source.setEventHandler { [self] in
                for listener in self.state.withLock({ Array($0.listeners.values) }) { listener() }
            }
            source.resume()
            state.source = source
        }
    }

    /// Calls `listener` on every SIGHUP until ``remove(_:)`` with the returned id.
    func add(_ listener: @escaping @Sendable () -> Void) -> Int {
        install()
        return state.withLock { state in
            state.nextID += 1
            state.listeners[state.nextID] = listener
            return state.nextID
        }
    }

    func remove(_ id: Int) {
        state.withLock { _ = $0.listeners.removeValue(forKey: id) }
    }
}
