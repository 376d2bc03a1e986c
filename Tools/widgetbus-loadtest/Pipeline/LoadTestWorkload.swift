import Foundation
import WidgetBusProtocol
import WidgetDomain

/// The five widgets a simulated user taps, each with the timeline kind whose events the load test
/// watches: the first kind timeline-service publishes for the widget's app.
enum LoadWidget: String, CaseIterable, Codable, Sendable {
    case tension, diet, tenx, stress, jitter

    var app: WidgetApp {
        switch self {
        case .tension: .tensionCheck
        case .diet: .diet
        case .tenx: .tenX
        case .stress: .stressMonitor
        case .jitter: .jitter
        }
    }

    /// timeline-service publishes an app's kinds in `WidgetKind.allCases` order, so the first one
    /// is the earliest timeline of a change.
    var timelineKind: WidgetKind {
        WidgetKind.allCases.first { $0.app == app }!
    }
}

/// How the load is spread over the widgets: relative weights, e.g. `diet=30,tension=25,…`.
struct LoadMix: Sendable, CustomStringConvertible {
    /// What users do most: Diet quick logs (every meal and snack), Tension Check
    /// check-ins (several a day), watch stress measurements, TenX focus toggles (three a day) and
    /// Jitter drinks (two or three a day).
    static let `default` = LoadMix(weights: [.diet: 30, .tension: 25, .stress: 20, .tenx: 15, .jitter: 10])

    let weights: [(widget: LoadWidget, weight: Double)]

    init(weights: [LoadWidget: Double]) {
        self.weights = LoadWidget.allCases.compactMap { widget in weights[widget].map { (widget, $0) } }
            .filter { $0.weight > 0 }
            .sorted { $0.weight > $1.weight }
    }

    /// Parses `widget=weight,…`; widgets left out get no load.
    init(parsing text: String) throws {
        var weights: [LoadWidget: Double] = [:]
        for item in text.split(separator: ",") {
            let parts = item.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, let widget = LoadWidget(rawValue: parts[0]), let weight = Double(parts[1]),
                weight.isFinite, weight >= 0
            else {
                throw LoadTestError("--mix takes widget=weight pairs separated by commas, widgets "
                    + LoadWidget.allCases.map(\.rawValue).joined(separator: ", ") + "; got '\(item)'")
            }
            weights[widget] = weight
        }
        self.init(weights: weights)
        guard !self.weights.isEmpty else { throw LoadTestError("--mix gives no widget a weight above 0") }
    }

    var total: Double { weights.reduce(0) { $0 + $1.weight } }

    /// Each widget's share in percent.
    var shares: [String: Double] {
        Dictionary(uniqueKeysWithValues: weights.map { ($0.widget.rawValue, $0.weight * 100 / total) })
    }

    func pick(using random: inout some RandomNumberGenerator) -> LoadWidget {
        var point = Double.random(in: 0..<total, using: &random)
        for (widget, weight) in weights {
            if point < weight { return widget }
            point -= weight
        }
        return weights.last!.widget
    }

    var description: String {
        weights.map { "\($0.widget.rawValue)=\(Self.number($0.weight))" }.joined(separator: ",")
    }

    /// `diet 30 % · tension 25 % · …`
    var summary: String {
        weights.map { "\($0.widget.rawValue) \(Self.number(($0.weight * 1000 / total).rounded() / 10)) %" }.joined(separator: " · ")
    }

    private static func number(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}

/// One message the load test sends.
struct PlannedMessage {
    var widget: LoadWidget
    var type: MessageType
    var body: JSONValue
}

/// What a simulated user knows from the replies it got: enough to send only valid, state-changing
/// messages (a check-in to mark done, a drink session to complete, today's focuses). Each user has
/// at most one request in flight, as a person taps one thing at a time.
struct SimulatedUser {
    let name: String
    var busy = false
    /// Set-up messages sent so far (see ``LoadWorkload/setup``).
    var setupDone = 0
    var openCheckIn: String?
    var dietActions = 0
    var goalID: String?
    var focusIDs: [String] = []
    var sessionID: String?
    /// The highest state version seen per app, to tell a reply that changed nothing.
    var versions: [WidgetApp: UInt64] = [:]
}

/// The messages simulated users send and how they learn from replies. Every message is valid
/// and changes state (so each one should produce a timeline); see docs in `LoadTestCommand`.
enum LoadWorkload {
    static let foods: [(id: String, name: String, calories: Double, protein: Double, carbs: Double, fat: Double, unit: String)] = [
        ("oatmeal", "Oatmeal", 150, 5, 27, 3, "bowl"),
        ("greek-yogurt", "Greek yogurt", 100, 17, 6, 0.7, "cup"),
        ("banana", "Banana", 105, 1.3, 27, 0.4, "piece"),
        ("chicken-salad", "Chicken salad", 320, 28, 12, 18, "plate"),
    ]

    /// Set-up messages, in order, that give every user state in all five apps (and the ids the
    /// load needs: foods, a goal and today's focuses) before anything is measured.
    static let setupCount = 8

    static func setup(step: Int, for user: SimulatedUser) -> PlannedMessage {
        switch step {
        case 0:
            return PlannedMessage(
                widget: .diet, type: .updateGoals,
                body: .object(["calorieTarget": .number(2100), "proteinTarget": .number(140), "carbsTarget": .number(230), "fatTarget": .number(70)]))
        case 1:
            let foods: [JSONValue] = Self.foods.map { food in
                .object([
                    "id": .string(food.id), "name": .string(food.name), "calories": .number(food.calories),
                    "protein": .number(food.protein), "carbs": .number(food.carbs), "fat": .number(food.fat),
                    "defaultQuantity": .number(1), "unit": .string(food.unit),
                ])
            }
            return PlannedMessage(widget: .diet, type: .updateRecentFoods, body: .object(["foods": .array(foods)]))
        case 2:
            return PlannedMessage(widget: .tenx, type: .createGoal, body: .object(["title": .string("Ship the release")]))
        case 3:
            return PlannedMessage(widget: .tenx, type: .completeOnboarding, body: .object([:]))
        case 4:
            return dayEntry(for: user)
        case 5:
            return PlannedMessage(
                widget: .jitter, type: .updateJitterScores,
                body: .object(["crashRiskScore": .number(35), "focusScore": .number(70), "currentCaffeineLevel": .number(120)]))
        case 6:
            return PlannedMessage(widget: .stress, type: .recordStressMeasurement, body: .object(["stressLevel": .number(40), "hrvMilliseconds": .number(55)]))
        default:
            return PlannedMessage(widget: .tension, type: .recordTension, body: .object(["level": .number(3)]))
        }
    }

    /// The next message of `widget` for `user`, given what the user knows.
    static func next(_ widget: LoadWidget, for user: inout SimulatedUser, random: inout some RandomNumberGenerator) -> PlannedMessage {
        switch widget {
        case .tension:
            if let checkIn = user.openCheckIn {
                // A suggestion is showing: mostly done, sometimes skipped.
                return Double.random(in: 0..<1, using: &random) < 0.7
                    ? PlannedMessage(widget: .tension, type: .markInterventionDone, body: .object(["checkInId": .string(checkIn)]))
                    : PlannedMessage(widget: .tension, type: .resetWidget, body: .object([:]))
            }
            let level = [0, 3, 5, 7, 10].randomElement(using: &random)!
            return PlannedMessage(widget: .tension, type: .recordTension, body: .object(["level": .number(Double(level))]))
        case .diet:
            user.dietActions += 1
            if user.dietActions % 8 == 0 {
                // The app syncs its totals now and then (this also keeps quick logs far from the daily bound).
                let calories = Double(Int.random(in: 800...1_800, using: &random))
                return PlannedMessage(
                    widget: .diet, type: .updateNutrition,
                    body: .object([
                        "calories": .number(calories), "protein": .number((calories * 0.05).rounded()),
                        "carbs": .number((calories * 0.12).rounded()), "fat": .number((calories * 0.035).rounded()),
                    ]))
            }
            return PlannedMessage(
                widget: .diet, type: .quickLogFood, body: .object(["foodId": .string(foods.randomElement(using: &random)!.id)]))
        case .tenx:
            guard let focus = user.focusIDs.randomElement(using: &random) else { return dayEntry(for: user) }
            return PlannedMessage(widget: .tenx, type: .toggleFocus, body: .object(["focusId": .string(focus)]))
        case .stress:
            if Double.random(in: 0..<1, using: &random) < 0.1 {
                return PlannedMessage(widget: .stress, type: .updateWidget, body: .object([:]))
            }
            return PlannedMessage(
                widget: .stress, type: .recordStressMeasurement,
                body: .object([
                    "stressLevel": .number(Double(Int.random(in: 5...95, using: &random))),
                    "hrvMilliseconds": .number(Double(Int.random(in: 25...110, using: &random))),
                ]))
        case .jitter:
            if let session = user.sessionID {
                return PlannedMessage(widget: .jitter, type: .completeDrink, body: .object(["sessionId": .string(session)]))
            }
            if Double.random(in: 0..<1, using: &random) < 0.3 {
                return PlannedMessage(
                    widget: .jitter, type: .updateJitterScores,
                    body: .object([
                        "crashRiskScore": .number(Double(Int.random(in: 0...100, using: &random))),
                        "focusScore": .number(Double(Int.random(in: 0...100, using: &random))),
                        "currentCaffeineLevel": .number(Double(Int.random(in: 0...400, using: &random))),
                    ]))
            }
            return PlannedMessage(widget: .jitter, type: .startDrink, body: .object([:]))
        }
    }

    private static func dayEntry(for user: SimulatedUser) -> PlannedMessage {
        let goal: JSONValue = user.goalID.map { .string($0) } ?? .null
        let focuses: [JSONValue] = ["Write the plan", "Build it", "Ship it"].map { .object(["title": .string($0), "goalId": goal]) }
        return PlannedMessage(widget: .tenx, type: .createDayEntry, body: .object(["focuses": .array(focuses)]))
    }

    /// Learns from a reply what the user's next messages need.
    static func apply(_ reply: LoadTestReply, of message: PlannedMessage, to user: inout SimulatedUser) {
        if let code = reply.body?.code {
            switch code {
            case "unknown_check_in": user.openCheckIn = nil
            case "unknown_drink_session", "drink_session_expired": user.sessionID = nil
            case "focus_not_today", "unknown_focus": user.focusIDs = []  // a new day: set it first
            default: break
            }
            return
        }
        guard let state = reply.body?.state else { return }
        switch message.widget {
        case .tension:
            user.openCheckIn = state.phase?.phase == "suggestion" ? state.phase?.checkInId : nil
        case .tenx:
            if let goal = state.goals?.first(where: { $0.archivedAt == nil }) { user.goalID = goal.id }
            if let today = state.dayEntries?.max(by: { $0.dayKey < $1.dayKey }) { user.focusIDs = today.focuses.map(\.id) }
        case .jitter:
            user.sessionID = state.session?.id
        case .diet, .stress:
            break
        }
    }
}

/// The parts of a reply the load test reads; everything else is skipped.
struct LoadTestReply: Decodable {
    struct Body: Decodable {
        struct State: Decodable {
            struct Phase: Decodable {
                var phase: String?
                var checkInId: String?
            }
            struct Session: Decodable { var id: String }
            struct Goal: Decodable {
                var id: String
                var archivedAt: String?
            }
            struct DayEntry: Decodable {
                struct Focus: Decodable { var id: String }
                var dayKey: String
                var focuses: [Focus]
            }
            var phase: Phase?
            var session: Session?
            var goals: [Goal]?
            var dayEntries: [DayEntry]?

            private enum CodingKeys: String, CodingKey { case phase, session, goals, dayEntries }

            /// Lenient: the apps' states share field names with different shapes (Diet's `goals`
            /// is an object, TenX's a list), and only the fields of the app replied for matter.
            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                phase = try? container.decodeIfPresent(Phase.self, forKey: .phase)
                session = try? container.decodeIfPresent(Session.self, forKey: .session)
                goals = try? container.decodeIfPresent([Goal].self, forKey: .goals)
                dayEntries = try? container.decodeIfPresent([DayEntry].self, forKey: .dayEntries)
            }
        }
        var app: WidgetApp?
        var version: UInt64?
        var state: State?
        var code: String?
        var message: String?
    }

    var type: String
    var inReplyTo: String?
    var body: Body?
}

struct LoadTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
