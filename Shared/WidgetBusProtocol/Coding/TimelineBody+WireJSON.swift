import Foundation
import WidgetDomain

// Timelines written straight to the wire's JSON. timeline-service encodes a timeline for every
// widget a change touches (a Jitter drink in progress is 180 entries), and through `Encodable`
// that was half of its CPU. These writers produce exactly the bytes of the types' `Codable`
// conformances under `.sortedKeys` — those conformances stay the definition of the format, and
// the tests compare the two over every widget kind — in a fraction of the time.
//
// Each object's keys are written in sorted order (UTF-8 bytes); an entry is flat, so each
// content type writes the entry's `date` in its sorted place among its own fields.

extension TimelineBody {
    /// `{"entries", "generatedAt", "kind", "metricsVersion"?, "policy", "profileVersion",
    /// "stateVersion", "timeZone", "user", "validUntil"?}`, as ``encode(to:)`` defines it.
    func writeWireJSON(to writer: inout WireJSONWriter) throws {
        try writer.object { writer in
            writer.key("entries")
            let policy: ReloadPolicy
            switch timeline {
            case .tensionCheck(let timeline): try timeline.writeEntries(to: &writer); policy = timeline.policy
            case .diet(let timeline): try timeline.writeEntries(to: &writer); policy = timeline.policy
            case .tenX(let timeline): try timeline.writeEntries(to: &writer); policy = timeline.policy
            case .stressMonitor(let timeline): try timeline.writeEntries(to: &writer); policy = timeline.policy
            case .jitter(let timeline): try timeline.writeEntries(to: &writer); policy = timeline.policy
            }
            writer.field("generatedAt", generatedAt)
            writer.field("kind", kind)
            writer.field("metricsVersion", ifPresent: metricsVersion)
            writer.key("policy")
            policy.writeWireJSON(to: &writer)
            writer.field("profileVersion", profileVersion)
            writer.field("stateVersion", stateVersion)
            writer.field("timeZone", timeZone)
            writer.field("user", user)
            writer.field("validUntil", ifPresent: validUntil)
        }
    }
}

/// Content of a timeline entry that writes its fields with the entry's date among them.
protocol WireTimelineContent {
    func writeFields(dated date: Date, to writer: inout WireJSONWriter) throws
}

extension Timeline where Content: WireTimelineContent {
    func writeEntries(to writer: inout WireJSONWriter) throws {
        try writer.array(entries) { writer, entry in
            try writer.object { writer in try entry.content.writeFields(dated: entry.date, to: &writer) }
        }
    }
}

extension ReloadPolicy {
    func writeWireJSON(to writer: inout WireJSONWriter) {
        writer.object { writer in
            switch self {
            case .atEnd: writer.field("type", "atEnd")
            case .never: writer.field("type", "never")
            case .after(let date):
                writer.field("date", date)
                writer.field("type", "after")
            }
        }
    }
}

// MARK: - Tension Check

extension TensionCheckPhase: WireTimelineContent {
    func writeFields(dated date: Date, to writer: inout WireJSONWriter) throws {
        writeFields(dated: Optional(date), to: &writer)
    }

    /// The phase's fields, with an entry's `date` in its sorted place when it has one (a
    /// timeline entry) and without (the state's `phase`).
    func writeFields(dated date: Date?, to writer: inout WireJSONWriter) {
        switch self {
        case .picker:
            writer.field("date", ifPresent: date)
            writer.field("phase", name)
        case .suggestion(let intervention, let checkIn):
            writer.field("actionLabel", intervention.actionLabel)
            writer.key("checkIn")
            writer.object { writer in
                writer.field("createdAt", checkIn.createdAt)
                writer.field("id", checkIn.id)
                writer.field("interventionCompleted", checkIn.interventionCompleted)
                writer.field("suggestedInterventionId", ifPresent: checkIn.suggestedInterventionId)
                writer.field("tensionLevel", checkIn.tensionLevel)
            }
            writer.field("checkInId", checkIn.id)
            writer.field("date", ifPresent: date)
            writer.field("interventionId", intervention.interventionId)
            writer.field("interventionName", intervention.name)
            writer.field("phase", name)
        case .completed(let interventionName, let checkInId, let resetAt):
            writer.field("checkInId", checkInId)
            writer.field("date", ifPresent: date)
            writer.field("interventionName", interventionName)
            writer.field("phase", name)
            writer.field("resetAt", resetAt)
        }
    }
}

// MARK: - Diet

extension DietWidgetContent: WireTimelineContent {
    func writeFields(dated date: Date, to writer: inout WireJSONWriter) throws {
        switch self {
        case .progress(let content):
            try writer.field("calorieProgress", ifPresent: content.calorieProgress)
            try writer.field("caloriesRemaining", ifPresent: content.caloriesRemaining)
            content.configuration.writeField(to: &writer)
            writer.field("date", date)
            writer.field("dayKey", ifPresent: content.dayKey)
            if let goals = content.goals {
                writer.key("goals")
                try goals.writeObject(to: &writer)
            }
            writer.field("kind", kind)
            if let macros = content.macros {
                writer.key("macros")
                try writer.array(macros) { writer, macro in
                    try writer.object { writer in
                        try writer.field("current", macro.current)
                        writer.field("macro", macro.macro)
                        try writer.field("progress", macro.progress)
                        try writer.field("target", macro.target)
                    }
                }
            }
            if let nutrition = content.nutrition {
                writer.key("nutrition")
                try nutrition.writeObject(to: &writer)
            }
            writer.field("view", content.view)
        case .quickLog(let content):
            content.configuration.writeField(to: &writer)
            writer.field("date", date)
            writer.field("dayKey", ifPresent: content.dayKey)
            if let foods = content.foods {
                writer.key("foods")
                try writer.array(foods) { writer, food in
                    try writer.object { writer in
                        try writer.field("calories", ifPresent: food.calories)
                        try writer.field("defaultQuantity", food.defaultQuantity)
                        writer.field("id", food.id)
                        writer.field("name", food.name)
                        writer.field("unit", food.unit)
                    }
                }
            }
            writer.field("kind", kind)
            writer.field("message", ifPresent: content.message)
            writer.field("view", content.view)
        case .lockScreen(let content):
            try writer.field("calorieProgress", content.calorieProgress)
            try writer.field("caloriesRemaining", ifPresent: content.caloriesRemaining)
            content.configuration.writeField(to: &writer)
            writer.field("date", date)
            writer.field("dayKey", ifPresent: content.dayKey)
            writer.field("inlineText", content.inlineText)
            writer.field("kind", kind)
            writer.field("rectangularText", content.rectangularText)
            writer.field("view", content.view)
        }
    }
}

// Diet's objects that both its timelines and its state carry.

extension NutritionGoals {
    func writeObject(to writer: inout WireJSONWriter) throws {
        try writer.object { writer in
            writer.field("calorieTarget", calorieTarget)
            try writer.field("carbsTarget", carbsTarget)
            try writer.field("fatTarget", fatTarget)
            try writer.field("proteinTarget", proteinTarget)
        }
    }
}

extension NutritionTotals {
    func writeObject(to writer: inout WireJSONWriter) throws {
        try writer.object { writer in
            try writer.field("calories", calories)
            try writer.field("carbs", carbs)
            try writer.field("fat", fat)
            try writer.field("protein", protein)
        }
    }
}

extension DietWidgetConfiguration {
    /// The `configuration` field every Diet content carries.
    fileprivate func writeField(to writer: inout WireJSONWriter) {
        writer.key("configuration")
        writeObject(to: &writer)
    }

    func writeObject(to writer: inout WireJSONWriter) {
        writer.object { writer in
            writer.field("compactMode", compactMode)
            writer.field("showMacros", showMacros)
        }
    }
}

// MARK: - TenX

extension TenXWidgetSnapshot: WireTimelineContent {
    func writeFields(dated date: Date, to writer: inout WireJSONWriter) throws {
        writer.field("completedCount", completedCount)
        writer.field("date", date)
        writer.field("dayKey", dayKey)
        writer.field("deepLink", deepLink)
        writer.key("focuses")
        writer.array(focuses) { writer, focus in
            writer.object { writer in
                writer.field("carriedFromDayKey", ifPresent: focus.carriedFromDayKey)
                writer.field("goalId", focus.goalId)
                writer.field("goalTitle", ifPresent: focus.goalTitle)
                writer.field("id", focus.id)
                writer.field("isCompleted", focus.isCompleted)
                writer.field("title", focus.title)
            }
        }
        writer.field("generatedAt", generatedAt)
        writer.field("state", state)
        writer.field("streak", streak)
    }
}

// MARK: - Stress Monitor

extension StressMonitorEntry: WireTimelineContent {
    func writeFields(dated date: Date, to writer: inout WireJSONWriter) throws {
        writer.field("category", category)
        writer.field("categoryName", categoryName)
        writer.field("date", date)
        writer.field("deepLink", deepLink)
        try writer.field("hrvAverage", hrvAverage)
        writer.key("hrvHistory")
        try writer.array(hrvHistory) { writer, value in try writer.value(value) }
        try writer.field("hrvMax", hrvMax)
        writer.field("hrvTrendDirection", ifPresent: hrvTrendDirection)
        writer.field("hrvTrendPercent", ifPresent: hrvTrendPercent)
        writer.field("measuredAt", ifPresent: measuredAt)
        writer.field("stressLevel", stressLevel)
    }
}

// MARK: - Jitter

extension JitterWidgetContent: WireTimelineContent {
    func writeFields(dated date: Date, to writer: inout WireJSONWriter) throws {
        writer.field("crashRiskScore", crashRiskScore)
        writer.field("currentCaffeineLevel", currentCaffeineLevel)
        writer.field("date", date)
        writer.field("elapsed", ifPresent: elapsed)
        writer.field("elapsedSeconds", ifPresent: elapsedSeconds)
        writer.field("focusScore", focusScore)
        writer.field("isPlaceholder", isPlaceholder)
        writer.field("lastDrinkName", ifPresent: lastDrinkName)
        writer.field("lastDrinkTime", ifPresent: lastDrinkTime)
        writer.field("lastUpdated", ifPresent: lastUpdated)
        writer.field("riskColor", riskColor)
        writer.field("riskLevel", riskLevel)
        writer.field("sessionId", ifPresent: sessionId)
        writer.field("sessionStartTime", ifPresent: sessionStartTime)
        writer.field("view", view)
    }
}
