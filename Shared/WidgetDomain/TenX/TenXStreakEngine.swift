/// The TenX streak: consecutive days with a completed focus, where today, while still pending,
/// doesn't break it.
///
/// A day counts when it has an entry with at least one completed focus. Today counts only once
/// it does; until then the streak is yesterday's. A day without an entry ends the run.
public enum TenXStreakEngine {
    public static func currentStreak(todayKey: DayKey, entries: [TenXDayEntry], tail: TenXStreakTail? = nil) -> Int {
        let byKey = index(entries)
        return runLength(endingAt: startKey(todayKey: todayKey, byKey: byKey), byKey: byKey, tail: tail)
    }

    /// The first day of the current streak (for milestones), or nil without a streak.
    public static func streakStartDayKey(todayKey: DayKey, entries: [TenXDayEntry], tail: TenXStreakTail? = nil)
        -> DayKey?
    {
        let byKey = index(entries)
        let start = startKey(todayKey: todayKey, byKey: byKey)
        let streak = runLength(endingAt: start, byKey: byKey, tail: tail)
        guard streak > 0 else { return nil }
        return start.adding(days: -(streak - 1))
    }

    /// Consecutive streak-keeping days ending on `day`, continuing into `tail` where the entries
    /// stop exactly at the tail's day.
    public static func runLength(endingAt day: DayKey, entries: [TenXDayEntry], tail: TenXStreakTail?) -> Int {
        runLength(endingAt: day, byKey: index(entries), tail: tail)
    }

    private static func runLength(endingAt day: DayKey, byKey: [DayKey: TenXDayEntry], tail: TenXStreakTail?) -> Int {
        var streak = 0
        var cursor = day
        while true {
            if let entry = byKey[cursor] {
                guard entry.maintainsStreak else { return streak }
                streak += 1
                cursor = cursor.previous
            } else {
                if let tail, tail.throughDayKey == cursor { streak += tail.length }
                return streak
            }
        }
    }

    private static func startKey(todayKey: DayKey, byKey: [DayKey: TenXDayEntry]) -> DayKey {
        byKey[todayKey]?.maintainsStreak == true ? todayKey : todayKey.previous
    }

    private static func index(_ entries: [TenXDayEntry]) -> [DayKey: TenXDayEntry] {
        Dictionary(entries.map { ($0.dayKey, $0) }, uniquingKeysWith: { first, _ in first })
    }
}
