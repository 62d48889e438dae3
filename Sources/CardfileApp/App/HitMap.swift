import CardfileTerminal

/// Where a frame drew what a click can reach. The view returns it with the frame, and the
/// mouse reads it, so a click lands on what the person saw.
public struct HitMap: Sendable {
    /// What a place on screen is.
    enum Target: Equatable, Sendable {
        /// A form's field, by index.
        case field(Int)
        /// A list of records; the list tells the row and column from the point.
        case list
        /// The tables screen; it tells the table from the point.
        case tables
    }

    private var regions: [(area: Rect, target: Target)] = []

    public init() {}

    mutating func add(_ area: Rect, _ target: Target) {
        guard !area.isEmpty else { return }
        regions.append((area, target))
    }

    /// What was drawn at `point`, and the area it was drawn in; the last drawn wins.
    func target(at point: Point) -> (area: Rect, target: Target)? {
        regions.last { $0.area.contains(point) }
    }
}

/// A drawn frame's extras: where the terminal cursor goes and what a click can reach.
public struct FrameInfo: Sendable {
    /// Where the terminal cursor goes; nil hides it.
    public var cursor: Point?
    /// What each place on screen is, for the mouse.
    public var hits: HitMap
}
