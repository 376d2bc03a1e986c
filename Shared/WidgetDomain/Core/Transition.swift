/// What a reducer returns: the next state and the records it created or changed for sync.
public struct Transition<State: Sendable & Equatable>: Sendable, Equatable {
    public var state: State
    public var records: [PendingRecord]

    public init(state: State, records: [PendingRecord] = []) {
        self.state = state
        self.records = records
    }

    public func map<Other>(_ transform: (State) -> Other) -> Transition<Other> {
        Transition<Other>(state: transform(state), records: records)
    }
}
