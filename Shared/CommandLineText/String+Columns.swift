extension String {
    /// The text as a table cell `width` columns wide, aligned left or right: what `--help` and the
    /// benchmark tables print. A longer text keeps one space to its neighbour, so that columns never
    /// run together.
    public func padded(toWidth width: Int, alignedRight: Bool = false) -> String {
        let padding = String(repeating: " ", count: max(1, width - count))
        return alignedRight ? padding + self : self + padding
    }

    /// One table line: each cell padded to its width (numbers read best aligned right), and the
    /// cells after the last width as they are.
    public static func tableRow(_ cells: [String], widths: [Int], alignedRight: Bool = false) -> String {
        zip(cells, widths).map { $0.padded(toWidth: $1, alignedRight: alignedRight) }.joined()
            + cells.dropFirst(widths.count).joined()
    }
}
