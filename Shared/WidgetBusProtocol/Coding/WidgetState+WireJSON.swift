import Foundation
import WidgetDomain

// Every widget state written to the wire field by field — the bytes its `Codable` conformance
// gives through ``WireJSONEncoder``, without `Encodable`'s per-value containers and key
// reordering. intent-handler encodes a new state once per intent (``StateRecord/encodingStateOnce()``),
// and that encoding was the largest item of its profile. Keys are written in sorted order;
// `StateWireJSONTests` compares both paths for every app with every optional field present and
// absent, and the golden files pin the bytes.

extension WidgetState {
    func writeWireJSON(to writer: inout WireJSONWriter) throws {
        switch self {
        case .tensionCheck(let state): state.writeWireJSON(to: &writer)
        case .diet(let state): try state.writeWireJSON(to: &writer)
        case .tenX(let state): state.writeWireJSON(to: &writer)
        case .stressMonitor(let state): try state.writeWireJSON(to: &writer)
        case .jitter(let state): state.writeWireJSON(to: &writer)
        }
    }
}

extension TensionCheckState {
    func writeWireJSON(to writer: inout WireJSONWriter) {
        writer.object { writer in
            writer.field("lastSuggestionId", ifPresent: lastSuggestionId)
            writer.key("phase")
            writer.object { phase.writeFields(dated: nil, to: &$0) }
        }
    }
}

extension DietState {
    func writeWireJSON(to writer: inout WireJSONWriter) throws {
        try writer.object { writer in
            writer.key("configurations")
            writer.object { writer in
                // A dictionary's keys, sorted as the encoder sorts them: by their UTF-8 bytes.
                for (kind, configuration) in configurations.sorted(by: { JSONText.precedes($0.key.rawValue, $1.key.rawValue) }) {
                    writer.key(kind.rawValue)
                    configuration.writeObject(to: &writer)
                }
            }
            writer.field("dayKey", ifPresent: dayKey)
            writer.key("goals")
            try goals.writeObject(to: &writer)
            writer.field("lastUpdated", ifPresent: lastUpdated)
            writer.key("nutrition")
            try nutrition.writeObject(to: &writer)
            writer.key("recentFoods")
            try writer.array(recentFoods) { writer, food in
                try writer.object { writer in
                    try writer.field("calories", food.calories)
                    try writer.field("carbs", food.carbs)
                    try writer.field("defaultQuantity", food.defaultQuantity)
                    try writer.field("fat", food.fat)
                    writer.field("id", food.id)
                    writer.field("name", food.name)
                    try writer.field("protein", food.protein)
                    writer.field("unit", food.unit)
                }
            }
            writer.field("trackingMode", trackingMode)
        }
    }
}

extension TenXState {
    func writeWireJSON(to writer: inout WireJSONWriter) {
        writer.object { writer in
            writer.key("dayEntries")
            writer.array(dayEntries) { writer, entry in
                writer.object { writer in
                    writer.field("createdAt", entry.createdAt)
                    writer.field("dayKey", entry.dayKey)
                    writer.key("focuses")
                    writer.array(entry.focuses) { writer, focus in
                        writer.object { writer in
                            writer.field("carriedFromDayKey", ifPresent: focus.carriedFromDayKey)
                            writer.field("completedAt", ifPresent: focus.completedAt)
                            writer.field("createdAt", focus.createdAt)
                            writer.field("goalId", focus.goalId)
                            writer.field("id", focus.id)
                            writer.field("isCompleted", focus.isCompleted)
                            writer.field("sortOrder", focus.sortOrder)
                            writer.field("title", focus.title)
                        }
                    }
                }
            }
            writer.key("goals")
            writer.array(goals) { writer, goal in
                writer.object { writer in
                    writer.field("archivedAt", ifPresent: goal.archivedAt)
                    writer.field("createdAt", goal.createdAt)
                    writer.field("id", goal.id)
                    writer.field("title", goal.title)
                }
            }
            writer.field("hasCompletedOnboarding", hasCompletedOnboarding)
            if let streakTail {
                writer.key("streakTail")
                writer.object { writer in
                    writer.field("length", streakTail.length)
                    writer.field("throughDayKey", streakTail.throughDayKey)
                }
            }
        }
    }
}

extension StressMonitorState {
    func writeWireJSON(to writer: inout WireJSONWriter) throws {
        try writer.object { writer in
            writer.key("hrvHistory")
            try writer.array(hrvHistory) { writer, sample in
                try writer.object { writer in
                    writer.field("measuredAt", sample.measuredAt)
                    try writer.field("milliseconds", sample.milliseconds)
                }
            }
            if let latest {
                writer.key("latest")
                writer.object { writer in
                    writer.field("measuredAt", latest.measuredAt)
                    writer.field("stressLevel", latest.stressLevel)
                }
            }
            writer.field("refreshRequestedAt", ifPresent: refreshRequestedAt)
        }
    }
}

extension JitterState {
    func writeWireJSON(to writer: inout WireJSONWriter) {
        writer.object { writer in
            if let scores {
                writer.key("scores")
                writer.object { writer in
                    writer.field("crashRiskScore", scores.crashRiskScore)
                    writer.field("currentCaffeineLevel", scores.currentCaffeineLevel)
                    writer.field("focusScore", scores.focusScore)
                    writer.field("lastDrinkName", ifPresent: scores.lastDrinkName)
                    writer.field("lastDrinkTime", ifPresent: scores.lastDrinkTime)
                    writer.field("lastUpdated", scores.lastUpdated)
                }
            }
            if let session {
                writer.key("session")
                writer.object { writer in
                    writer.field("id", session.id)
                    writer.field("startTime", session.startTime)
                }
            }
        }
    }
}
