/// A cell position: column `x`, line `y`, from the top-left corner.
public struct Point: Hashable, Sendable {
    public var x: Int
    public var y: Int

    public init(x: Int, y: Int) {
        self.x = x
        self.y = y
    }
}

/// A size in cells.
public struct Size: Hashable, Sendable {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = max(0, width)
        self.height = max(0, height)
    }
}

/// A rectangle of cells. Empty rectangles (zero width or height) are valid everywhere: widgets
/// given one draw nothing. Its arithmetic saturates at the ends of `Int` instead of
/// overflowing, so no rectangle, however far out, traps.
public struct Rect: Hashable, Sendable {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = max(0, width)
        self.height = max(0, height)
    }

    public init(size: Size) {
        self.init(x: 0, y: 0, width: size.width, height: size.height)
    }

    public var maxX: Int { x.saturatingAdd(width) }
    public var maxY: Int { y.saturatingAdd(height) }
    public var isEmpty: Bool { width == 0 || height == 0 }
    public var size: Size { Size(width: width, height: height) }

    public func contains(_ point: Point) -> Bool {
        point.x >= x && point.x < maxX && point.y >= y && point.y < maxY
    }

    /// The overlap of two rectangles (empty when they do not overlap).
    public func intersection(_ other: Rect) -> Rect {
        let left = max(x, other.x)
        let top = max(y, other.y)
        return Rect(x: left, y: top, width: min(maxX, other.maxX).saturatingSubtract(left), height: min(maxY, other.maxY).saturatingSubtract(top))
    }

    /// The rectangle shrunk by `amount` cells on every side.
    public func inset(by amount: Int) -> Rect {
        let twice = amount.saturatingAdd(amount)
        return Rect(x: x.saturatingAdd(amount), y: y.saturatingAdd(amount), width: width.saturatingSubtract(twice), height: height.saturatingSubtract(twice))
    }

    /// The top `lines` lines, and the rest.
    public func splitTop(_ lines: Int) -> (top: Rect, rest: Rect) {
        let taken = min(max(0, lines), height)
        return (Rect(x: x, y: y, width: width, height: taken), Rect(x: x, y: y.saturatingAdd(taken), width: width, height: height - taken))
    }

    /// The bottom `lines` lines, and the rest.
    public func splitBottom(_ lines: Int) -> (rest: Rect, bottom: Rect) {
        let taken = min(max(0, lines), height)
        return (Rect(x: x, y: y, width: width, height: height - taken), Rect(x: x, y: maxY.saturatingSubtract(taken), width: width, height: taken))
    }

    /// The left `columns` columns, and the rest.
    public func splitLeft(_ columns: Int) -> (left: Rect, rest: Rect) {
        let taken = min(max(0, columns), width)
        return (Rect(x: x, y: y, width: taken, height: height), Rect(x: x.saturatingAdd(taken), y: y, width: width - taken, height: height))
    }

    /// A rectangle of `size` centred in this one (clamped to it).
    public func centered(_ size: Size) -> Rect {
        let width = min(size.width, self.width)
        let height = min(size.height, self.height)
        return Rect(x: x.saturatingAdd((self.width - width) / 2), y: y.saturatingAdd((self.height - height) / 2), width: width, height: height)
    }
}

extension Int {
    /// `self + other`, held at `Int.max` or `Int.min` instead of overflowing.
    public func saturatingAdd(_ other: Int) -> Int {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? (other > 0 ? .max : .min) : sum
    }

    /// `self - other`, held at `Int.max` or `Int.min` instead of overflowing.
    public func saturatingSubtract(_ other: Int) -> Int {
        let (difference, overflow) = subtractingReportingOverflow(other)
        return overflow ? (other < 0 ? .max : .min) : difference
    }
}
