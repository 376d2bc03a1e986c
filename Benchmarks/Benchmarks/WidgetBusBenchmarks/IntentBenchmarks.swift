import Benchmark
import BusRuntime
import Foundation
import WidgetBusProtocol
import WidgetDomain

/// intent-handler's work per intent, step by step as `IntentProcessor` does it, without the
/// store: decode the request frame (``EndpointRequest/decode(_:codec:)``, what every request of
/// the intents endpoint goes through), apply the app's rules (``WidgetState/reduce(_:context:)``),
/// and encode the new state once for the reply and the `StateChanged` event that carry it.
enum IntentBenchmarks {
    static func register() {
        let codec = WireCodec()
        for scenario in IntentScenario.all(codec: codec) {
            Benchmark("Decode/\(scenario.type.rawValue)", configuration: .widgetBus) { _ in
                blackHole(try IntentsRequest.decode(scenario.frame, codec: codec))
            }
            let intent = scenario.intent(codec: codec)
            Benchmark("Reduce/\(scenario.type.rawValue)", configuration: .widgetBus) { _ in
                var context = Fixtures.context()
                blackHole(try scenario.state.reduce(intent, context: &context))
            }
        }
        for app in WidgetApp.allCases {
            let state = UserStates.shown(by: app)
            Benchmark("State encode/\(app.rawValue)", configuration: .widgetBus) { _ in
                blackHole(try encodeChange(to: state, of: app, codec: codec))
            }
        }
    }

    /// The reply and the event of an intent that changed `app`'s state to `state`, the state
    /// encoded once and spliced into both, as `IntentProcessor.apply` encodes them (its stored
    /// row splices the same bytes).
    private static func encodeChange(to state: WidgetState, of app: WidgetApp, codec: WireCodec) throws -> (reply: Data, event: Data) {
        let record = try StateRecord(user: Fixtures.user, app: app, version: Fixtures.sequence, state: state).encodingStateOnce()
        let event = Envelope(
            type: MessageType.stateChanged.rawValue, user: Fixtures.user, sentAt: Fixtures.now,
            body: StateChangedBody(epoch: Fixtures.epoch, sequence: Fixtures.sequence, causedBy: Fixtures.requestID, record: record))
        let reply = try codec.reply(
            to: Fixtures.requestID, user: Fixtures.user, type: .stateReply, body: StateReplyBody(record: record), now: Fixtures.now)
        return (reply, try codec.encode(event))
    }
}
