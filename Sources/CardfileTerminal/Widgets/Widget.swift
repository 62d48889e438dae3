/// Something drawn into an area of a buffer. Widgets are values rebuilt every frame; they
/// never touch the terminal, and draw nothing in an empty area.
public protocol Widget {
    func render(in area: Rect, buffer: inout Buffer)
}

/// A widget whose state (cursor, scroll position) lives with its caller between frames and is
/// adjusted while drawing (to keep the cursor visible).
public protocol StatefulWidget {
    associatedtype State
    func render(in area: Rect, buffer: inout Buffer, state: inout State)
}

/// A frame with an optional title: draws its border and returns the inner area.
public struct Block: Sendable {
    public var title: String?
    public var style: Style
    public var borderStyle: Style

    public init(title: String? = nil, style: Style = Style(background: .surface), borderStyle: Style = Style(foreground: .border, background: .surface)) {
        self.title = title
        self.style = style
        self.borderStyle = borderStyle
    }

    /// Fills `area`, draws the border and title, and returns the area inside the border.
    @discardableResult
    public func render(in area: Rect, buffer: inout Buffer) -> Rect {
        let area = area.intersection(buffer.area)   // nothing is drawn outside the buffer
        guard !area.isEmpty else { return area }
        buffer.fill(area, style: style)
        guard area.width >= 2, area.height >= 2 else { return Rect(x: area.x, y: area.y, width: 0, height: 0) }
        let right = area.maxX - 1
        let bottom = area.maxY - 1
        for x in (area.x + 1)..<right {
            buffer.set(Cell(text: "─", style: borderStyle), x: x, y: area.y)
            buffer.set(Cell(text: "─", style: borderStyle), x: x, y: bottom)
        }
        for y in (area.y + 1)..<bottom {
            buffer.set(Cell(text: "│", style: borderStyle), x: area.x, y: y)
            buffer.set(Cell(text: "│", style: borderStyle), x: right, y: y)
        }
        buffer.set(Cell(text: "┌", style: borderStyle), x: area.x, y: area.y)
        buffer.set(Cell(text: "┐", style: borderStyle), x: right, y: area.y)
        buffer.set(Cell(text: "└", style: borderStyle), x: area.x, y: bottom)
        buffer.set(Cell(text: "┘", style: borderStyle), x: right, y: bottom)
        if let title, area.width > 4 {
            buffer.write(" \(title) ", x: area.x + 2, y: area.y, maxWidth: area.width - 4, style: borderStyle.with(foreground: .accent).adding(.bold))
        }
        return area.inset(by: 1)
    }
}
