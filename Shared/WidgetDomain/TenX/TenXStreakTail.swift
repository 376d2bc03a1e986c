/// What the streak still needs of day entries that retention removed: the length of the run of
/// streak-keeping days that ended on `throughDayKey`, the newest removed day.
///
/// Days that old can no longer change (only today's entry is ever created or toggled), so one
/// number replaces them exactly and a streak can outlive the retained entries.
public struct TenXStreakTail: Codable, Equatable, Sendable {
    /// The newest day no longer kept as an entry; days up to it are closed for new entries.
    public let throughDayKey: DayKey
    /// Consecutive streak-keeping days ending on `throughDayKey` (0 if that day broke the run).
    public let length: Int

    public init(throughDayKey: DayKey, length: Int) {
        self.throughDayKey = throughDayKey
        self.length = length
    }
}
