import Foundation

/// Where a service reads the time: the moment a message is stamped, a timeline is built, a
/// timer falls due. Wall-clock time, because that is what the protocol carries (`sentAt`,
/// `validUntil`) and what a widget's day boundaries are computed in. Services run on
/// ``SystemClock``; a test injects a clock it moves by hand, so timers and deadlines are checked
/// without sleeping.
public protocol WallClock: Sendable {
    var now: Date { get }
}

/// The machine's clock.
public struct SystemClock: WallClock {
    public init() {}

    public var now: Date { Date() }
}
