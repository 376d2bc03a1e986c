extension String {
    /// The text as a table cell `width` columns wide, aligned left or right: what `--help` and the
    /// benchmark tables print. A longer text keeps one space to its neighbour, so that columns never
    /// run together.
    public func padded(toWidth width: Int, alignedRight: Bool = false) -> String {
        let padding = String(repeating: " ", count: max(1, width - count))
        return alignedRight ? padding + self : self + padding
    }
}
