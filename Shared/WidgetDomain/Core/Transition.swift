/// What a reducer returns: the next state, the records it created or changed for sync, and a
/// URL the client should open (a widget button that hands over to the app, as Jitter's does).
public struct Transition<State: Sendable & Equatable>: Sendable, Equatable {
    public var state: State
    public var records: [PendingRecord]
    public var openURL: String?

    public init(state: State, records: [PendingRecord] = [], openURL: String? = nil) {
        self.state = state
        self.records = records
        self.openURL = openURL
    }

    public func map<Other>(_ transform: (State) -> Other) -> Transition<Other> {
        Transition<Other>(state: transform(state), records: records, openURL: openURL)
    }
}
