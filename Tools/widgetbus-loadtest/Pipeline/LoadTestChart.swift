import Foundation

/// Draws a load test as a self-contained SVG (hand-written: no plotting package): latency by
/// percentile, latency over time, and for a rate search the latency against the offered rate.
/// Latency axes are logarithmic, so a 0.3 ms median and a 40 ms tail are both readable.
enum LoadTestChart {
    static let width = 960.0
    static let panelHeight = 300.0
    static let roundTripColor = "#1f77b4"
    static let timelineColor = "#e8710a"
    static let targetColor = "#d62728"

    /// `detail` is the step drawn by percentile and over time (the fixed-rate run, or the highest
    /// passing step of a search).
    static func svg(report: LoadTestReport, detail: StepReport?, title: String, subtitle: String) -> String {
        var canvas = Canvas()
        var top = 70.0
        canvas.text(x: 24, y: 30, title, size: 18, weight: "600")
        canvas.text(x: 24, y: 52, subtitle, size: 12, color: "#555")
        if let detail {
            canvas.text(x: 24, y: 70, summary(detail), size: 12, color: "#555")
            top += 18
        }
        if let search = report.search {
            searchPanel(&canvas, top: top, steps: report.steps, search: search)
            top += panelHeight + 60
        }
        if let detail {
            let target = report.search?.targetP99Milliseconds
            let label = detail.offeredRate.map { String(format: " at %.0f intents/s offered", $0) } ?? detail.inFlight.map { " with \($0) in flight" } ?? ""
            percentilePanel(&canvas, top: top, step: detail, target: target, label: label)
            top += panelHeight + 60
            overTimePanel(&canvas, top: top, step: detail, target: target, label: label)
            top += panelHeight + 60
        }
        return canvas.document(width: width, height: top - 20)
    }

    /// The detail step in one line: volume, achieved rate, the headline percentiles, failures.
    static func summary(_ step: StepReport) -> String {
        let timeline = step.intentToTimeline
        let offered = step.offeredRate.map { " of \(Int($0))/s" } ?? ""
        return "\(step.sent) intents at \(Int(step.achievedRate.rounded()))/s\(offered) · intent → timeline p50 \(ms(timeline.p50Milliseconds)), "
            + "p99 \(ms(timeline.p99Milliseconds)), p99.9 \(ms(timeline.p999Milliseconds)), max \(ms(timeline.maxMilliseconds)) · "
            + "\(step.errorCount + step.timeouts) errors · \(step.timelines.missing) timelines missing"
    }

    private static func ms(_ value: Double) -> String {
        String(format: value >= 100 ? "%.0f ms" : value >= 10 ? "%.1f ms" : "%.2f ms", value)
    }

    // MARK: - Panels

    private static func percentilePanel(_ canvas: inout Canvas, top: Double, step: StepReport, target: Double?, label: String) {
        let curves = [
            ("intent round trip", roundTripColor, step.percentiles.roundTrip),
            ("intent → timeline", timelineColor, step.percentiles.intentToTimeline),
        ]
        let all = curves.flatMap { $0.2 }
        let count = max(step.roundTrip.count, step.intentToTimeline.count, 1)
        // x: the "nines" of a percentile, log10(1 / (1 − p)); the maximum sits at the last nine the count supports.
        func nines(_ percentile: Double) -> Double {
            percentile >= 100 ? log10(Double(count)) : log10(1 / (1 - percentile / 100))
        }
        let xMax = max(2, ceil(log10(Double(count))))
        let frame = Frame(top: top, height: panelHeight, xRange: 0...xMax, yRange: LogAxis.range(all.map(\.milliseconds) + (target.map { [$0] } ?? [])))
        canvas.panelTitle(frame, "Latency by percentile" + label)
        canvas.logYAxis(frame, label: "latency (ms)")
        for nine in 0...Int(xMax) {
            let percentile = 100 * (1 - pow(10, -Double(nine)))
            let text = nine == 0 ? "0%" : String(format: "%.\(max(0, nine - 2))f%%", percentile)
            canvas.xTick(frame, at: Double(nine), text)
        }
        canvas.xLabel(frame, "percentile")
        if let target { canvas.targetLine(frame, target) }
        for (_, color, points) in curves {
            canvas.polyline(points.map { (frame.x(nines($0.percentile)), frame.y($0.milliseconds)) }, color: color, width: 2)
        }
        canvas.legend(frame, curves.map { ($0.0, $0.1, "") })
    }

    private static func overTimePanel(_ canvas: inout Canvas, top: Double, step: StepReport, target: Double?, label: String) {
        let buckets = step.overTime
        let bucketWidth = buckets.count > 1 ? buckets[1].startSeconds - buckets[0].startSeconds : 1
        let values = buckets.flatMap {
            [$0.roundTripP50Milliseconds, $0.roundTripP99Milliseconds, $0.timelineP50Milliseconds, $0.timelineP99Milliseconds, $0.timelineMaxMilliseconds]
                .compactMap { $0 }
        }
        let frame = Frame(
            top: top, height: panelHeight, xRange: 0...max(step.durationSeconds, bucketWidth),
            yRange: LogAxis.range(values + (target.map { [$0] } ?? [])))
        canvas.panelTitle(frame, "Latency over time" + label + String(format: " (per %.0f s, by scheduled time)", bucketWidth))
        canvas.logYAxis(frame, label: "latency (ms)")
        for tick in LinearAxis.ticks(upTo: frame.xRange.upperBound) {
            canvas.xTick(frame, at: tick, String(format: "%g", tick))
        }
        canvas.xLabel(frame, "seconds since the start of the step")
        if let target { canvas.targetLine(frame, target) }
        let series: [(String, String, String, Double, KeyPath<TimeBucket, Double?>)] = [
            ("round trip p50", roundTripColor, "4 3", 1.5, \.roundTripP50Milliseconds),
            ("round trip p99", roundTripColor, "", 2, \.roundTripP99Milliseconds),
            ("→ timeline p50", timelineColor, "4 3", 1.5, \.timelineP50Milliseconds),
            ("→ timeline p99", timelineColor, "", 2, \.timelineP99Milliseconds),
            ("→ timeline max", timelineColor, "1 3", 1.2, \.timelineMaxMilliseconds),
        ]
        for (_, color, dash, width, path) in series {
            // A bucket without samples breaks the line rather than bridging it.
            var segment: [(Double, Double)] = []
            for bucket in buckets {
                if let value = bucket[keyPath: path] {
                    segment.append((frame.x(bucket.startSeconds + bucketWidth / 2), frame.y(value)))
                } else {
                    canvas.polyline(segment, color: color, width: width, dash: dash)
                    segment = []
                }
            }
            canvas.polyline(segment, color: color, width: width, dash: dash)
        }
        canvas.legend(frame, series.map { ($0.0, $0.1, $0.2) })
    }

    private static func searchPanel(_ canvas: inout Canvas, top: Double, steps: [StepReport], search: LoadTestReport.Search) {
        let sorted = steps.filter { $0.offeredRate != nil }.sorted { $0.offeredRate! < $1.offeredRate! }
        let values = sorted.flatMap { [$0.intentToTimeline.p50Milliseconds, $0.intentToTimeline.p99Milliseconds, $0.intentToTimeline.p999Milliseconds, $0.roundTrip.p99Milliseconds] }
            .filter { $0 > 0 }
        let maxRate = (sorted.last?.offeredRate ?? 1) * 1.08
        let frame = Frame(top: top, height: panelHeight, xRange: 0...maxRate, yRange: LogAxis.range(values + [search.targetP99Milliseconds]))
        canvas.panelTitle(frame, String(format: "Rate search: latency by offered rate (target: intent → timeline p99 < %g ms)", search.targetP99Milliseconds))
        canvas.logYAxis(frame, label: "latency (ms)")
        for tick in LinearAxis.ticks(upTo: maxRate) {
            canvas.xTick(frame, at: tick, String(format: "%g", tick))
        }
        canvas.xLabel(frame, "offered intents/s (open loop)")
        canvas.targetLine(frame, search.targetP99Milliseconds)
        if let best = search.highestPassingRate {
            let x = frame.x(best)
            canvas.line(x, frame.top, x, frame.bottom, color: "#2ca02c", width: 1.5, dash: "5 4")
            canvas.text(x: x + 6, y: frame.top + 14, String(format: "highest passing: %.0f/s", best), size: 12, color: "#2ca02c", weight: "600")
        }
        let series: [(String, String, String, KeyPath<StepReport, Double>)] = [
            ("→ timeline p50", timelineColor, "4 3", \.intentToTimeline.p50Milliseconds),
            ("→ timeline p99", timelineColor, "", \.intentToTimeline.p99Milliseconds),
            ("→ timeline p99.9", timelineColor, "1 3", \.intentToTimeline.p999Milliseconds),
            ("round trip p99", roundTripColor, "", \.roundTrip.p99Milliseconds),
        ]
        for (_, color, dash, path) in series {
            let points = sorted.filter { $0[keyPath: path] > 0 }.map { (frame.x($0.offeredRate!), frame.y($0[keyPath: path])) }
            canvas.polyline(points, color: color, width: dash.isEmpty ? 2 : 1.5, dash: dash)
        }
        for step in sorted where step.intentToTimeline.p99Milliseconds > 0 {
            let passed = step.passed ?? false
            canvas.circle(
                frame.x(step.offeredRate!), frame.y(step.intentToTimeline.p99Milliseconds), radius: 4,
                fill: passed ? timelineColor : "white", stroke: passed ? timelineColor : targetColor)
        }
        canvas.legend(frame, series.map { ($0.0, $0.1, $0.2) } + [("● passed  ○ failed", "#555", "none")])
    }
}

// MARK: - Drawing

/// A plot area and its scales.
private struct Frame {
    let left = 76.0
    let right = LoadTestChart.width - 24
    let top: Double
    let height: Double
    let xRange: ClosedRange<Double>
    let yRange: ClosedRange<Double>  // milliseconds, logarithmic

    init(top: Double, height: Double, xRange: ClosedRange<Double>, yRange: ClosedRange<Double>) {
        self.top = top + 26
        self.height = height - 26 - 34
        self.xRange = xRange.lowerBound < xRange.upperBound ? xRange : xRange.lowerBound...(xRange.lowerBound + 1)
        self.yRange = yRange
    }

    var bottom: Double { top + height }

    func x(_ value: Double) -> Double {
        left + (value - xRange.lowerBound) / (xRange.upperBound - xRange.lowerBound) * (right - left)
    }

    func y(_ milliseconds: Double) -> Double {
        let low = log10(yRange.lowerBound)
        let high = log10(yRange.upperBound)
        let value = min(max(log10(max(milliseconds, yRange.lowerBound)), low), high)
        return bottom - (value - low) / (high - low) * height
    }
}

private enum LogAxis {
    /// Whole decades around the values (at least one decade).
    static func range(_ values: [Double]) -> ClosedRange<Double> {
        let positive = values.filter { $0 > 0 && $0.isFinite }
        guard let low = positive.min(), let high = positive.max() else { return 0.1...10 }
        var lower = pow(10, floor(log10(low)))
        var upper = pow(10, ceil(log10(high)))
        if upper <= lower { upper = lower * 10 }
        lower = max(lower, 0.001)
        return lower...upper
    }

    /// 1, 2 and 5 of every decade in the range, and whether each is a decade.
    static func ticks(_ range: ClosedRange<Double>) -> [(value: Double, major: Bool)] {
        var ticks: [(Double, Bool)] = []
        var decade = range.lowerBound
        while decade <= range.upperBound * 1.0001 {
            for (factor, major) in [(1.0, true), (2.0, false), (5.0, false)] where decade * factor <= range.upperBound * 1.0001 {
                ticks.append((decade * factor, major))
            }
            decade *= 10
        }
        return ticks
    }

    static func label(_ value: Double) -> String {
        value >= 1 ? String(format: "%g", value) : String(format: "%g", (value * 1000).rounded() / 1000)
    }
}

private enum LinearAxis {
    /// Round tick values from 0 to `upper`, about eight of them.
    static func ticks(upTo upper: Double) -> [Double] {
        guard upper > 0 else { return [0] }
        let raw = upper / 8
        let magnitude = pow(10, floor(log10(raw)))
        let step = [1.0, 2, 2.5, 5, 10].map { $0 * magnitude }.first { $0 >= raw } ?? raw
        return stride(from: 0, through: upper, by: step).map { $0 }
    }
}

private struct Canvas {
    private var elements: [String] = []

    func document(width: Double, height: Double) -> String {
        """
        <svg xmlns="http://www.w3.org/2000/svg" width="\(f(width))" height="\(f(height))" viewBox="0 0 \(f(width)) \(f(height))" \
        font-family="system-ui, -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif" font-size="12">
        <rect width="100%" height="100%" fill="white"/>
        \(elements.joined(separator: "\n"))
        </svg>

        """
    }

    mutating func text(x: Double, y: Double, _ text: String, size: Double = 12, color: String = "#222", weight: String = "normal",
                       anchor: String = "start", rotate: Bool = false) {
        let transform = rotate ? " transform=\"rotate(-90 \(f(x)) \(f(y)))\"" : ""
        elements.append(
            "<text x=\"\(f(x))\" y=\"\(f(y))\" font-size=\"\(f(size))\" fill=\"\(color)\" font-weight=\"\(weight)\" text-anchor=\"\(anchor)\"\(transform)>\(escape(text))</text>")
    }

    mutating func line(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, color: String, width: Double = 1, dash: String = "") {
        let dashAttribute = dash.isEmpty ? "" : " stroke-dasharray=\"\(dash)\""
        elements.append(
            "<line x1=\"\(f(x1))\" y1=\"\(f(y1))\" x2=\"\(f(x2))\" y2=\"\(f(y2))\" stroke=\"\(color)\" stroke-width=\"\(f(width))\"\(dashAttribute)/>")
    }

    mutating func polyline(_ points: [(Double, Double)], color: String, width: Double, dash: String = "") {
        guard !points.isEmpty else { return }
        if points.count == 1 {
            circle(points[0].0, points[0].1, radius: width + 0.5, fill: color, stroke: color)
            return
        }
        let dashAttribute = dash.isEmpty ? "" : " stroke-dasharray=\"\(dash)\""
        let list = points.map { "\(f($0.0)),\(f($0.1))" }.joined(separator: " ")
        elements.append(
            "<polyline points=\"\(list)\" fill=\"none\" stroke=\"\(color)\" stroke-width=\"\(f(width))\" stroke-linejoin=\"round\"\(dashAttribute)/>")
    }

    mutating func circle(_ x: Double, _ y: Double, radius: Double, fill: String, stroke: String) {
        elements.append(
            "<circle cx=\"\(f(x))\" cy=\"\(f(y))\" r=\"\(f(radius))\" fill=\"\(fill)\" stroke=\"\(stroke)\" stroke-width=\"1.5\"/>")
    }

    mutating func panelTitle(_ frame: Frame, _ title: String) {
        text(x: frame.left, y: frame.top - 10, title, size: 14, weight: "600")
        elements.append(
            "<rect x=\"\(f(frame.left))\" y=\"\(f(frame.top))\" width=\"\(f(frame.right - frame.left))\" height=\"\(f(frame.height))\" fill=\"#fcfcfc\" stroke=\"#bbb\"/>")
    }

    mutating func logYAxis(_ frame: Frame, label: String) {
        for (value, major) in LogAxis.ticks(frame.yRange) {
            let y = frame.y(value)
            line(frame.left, y, frame.right, y, color: major ? "#d8d8d8" : "#eeeeee")
            text(x: frame.left - 6, y: y + 4, LogAxis.label(value), size: 11, color: major ? "#333" : "#888", anchor: "end")
        }
        text(x: 18, y: frame.top + frame.height / 2, label, size: 12, color: "#444", anchor: "middle", rotate: true)
    }

    mutating func xTick(_ frame: Frame, at value: Double, _ label: String) {
        let x = frame.x(value)
        line(x, frame.top, x, frame.bottom, color: "#eeeeee")
        line(x, frame.bottom, x, frame.bottom + 4, color: "#888")
        text(x: x, y: frame.bottom + 17, label, size: 11, color: "#333", anchor: "middle")
    }

    mutating func xLabel(_ frame: Frame, _ label: String) {
        text(x: (frame.left + frame.right) / 2, y: frame.bottom + 32, label, size: 12, color: "#444", anchor: "middle")
    }

    mutating func targetLine(_ frame: Frame, _ milliseconds: Double) {
        let y = frame.y(milliseconds)
        line(frame.left, y, frame.right, y, color: LoadTestChart.targetColor, width: 1.2, dash: "6 4")
        text(x: frame.right - 6, y: y - 5, String(format: "target %g ms", milliseconds), size: 11, color: LoadTestChart.targetColor, anchor: "end")
    }

    /// Entries of (label, colour, dash) in the top-left corner; dash "none" draws no line.
    mutating func legend(_ frame: Frame, _ entries: [(String, String, String)]) {
        let width = 10 + Double(entries.map(\.0.count).max() ?? 0) * 6.6 + 34
        let x = frame.left + 10
        var y = frame.top + 10
        elements.append(
            "<rect x=\"\(f(x))\" y=\"\(f(y))\" width=\"\(f(width))\" height=\"\(f(Double(entries.count) * 16 + 8))\" fill=\"white\" fill-opacity=\"0.85\" stroke=\"#ddd\"/>")
        y += 16
        for (label, color, dash) in entries {
            if dash != "none" { line(x + 8, y - 4, x + 32, y - 4, color: color, width: 2, dash: dash) }
            text(x: x + (dash == "none" ? 8 : 38), y: y, label, size: 11, color: "#222")
            y += 16
        }
    }

    private func f(_ value: Double) -> String {
        String(format: "%.1f", value)
    }

    private func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
