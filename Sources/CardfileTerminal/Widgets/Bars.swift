/// The status line: text on the left, centre and right (the right side wins space first,
/// then the left).
public struct StatusBar: Widget, Sendable {
    public var left: String
    public var center: String
    public var right: String
    public var style: Style

    public init(left: String = "", center: String = "", right: String = "", style: Style = Style(foreground: .text, background: .surface)) {
        self.left = left
        self.center = center
        self.right = right
        self.style = style
    }

    public func render(in area: Rect, buffer: inout Buffer) {
        let area = area.intersection(buffer.area)   // nothing is drawn outside the buffer
        guard !area.isEmpty else { return }
        let line = Rect(x: area.x, y: area.y, width: area.width, height: 1)
        buffer.fill(line, style: style)
        let rightWidth = min(area.width, right.displayWidth)
        let rightX = area.maxX - rightWidth
        buffer.write(right, x: rightX, y: area.y, maxWidth: rightWidth, style: style)
        let leftRoom = max(0, rightX.saturatingSubtract(area.x) - (rightWidth > 0 ? 1 : 0))
        let leftUsed = buffer.write(left, x: area.x, y: area.y, maxWidth: leftRoom, style: style.adding(.bold))
        let centerWidth = center.displayWidth
        // Centred when it fits there; else moved left as far as the left part allows, so it is
        // cut only when it cannot fit at all.
        let centered = area.x.saturatingAdd((area.width - centerWidth) / 2)
        let centerX = max(area.x.saturatingAdd(leftUsed + (leftUsed > 0 ? 1 : 0)), min(centered, rightX - 1 - centerWidth))
        if centerX < rightX - 1 {
            buffer.write(center, x: centerX, y: area.y, maxWidth: rightX - 1 - centerX, style: style.with(foreground: .muted))
        }
    }
}

/// A progress bar with a label; an unknown fraction shows a moving block (`tick` advances it).
public struct ProgressBar: Widget, Sendable {
    /// Done, from 0 to 1 (held to that range; NaN counts as unknown); nil when unknown.
    public var fraction: Double? {
        didSet { fraction = Self.clamped(fraction) }
    }
    public var label: String
    public var tick: Int

    private static func clamped(_ fraction: Double?) -> Double? {
        guard let fraction, !fraction.isNaN else { return nil }
        return Swift.min(1, Swift.max(0, fraction))
    }

    public init(fraction: Double?, label: String = "", tick: Int = 0) {
        self.fraction = Self.clamped(fraction)
        self.label = label
        self.tick = tick
    }

    public func render(in area: Rect, buffer: inout Buffer) {
        let area = area.intersection(buffer.area)   // nothing is drawn outside the buffer
        guard !area.isEmpty else { return }
        let line = Rect(x: area.x, y: area.y, width: area.width, height: 1)
        let empty = Style(foreground: .text, background: .surface)
        buffer.fill(line, style: empty)
        let text: String
        if let fraction {
            text = label.isEmpty ? "\(Int(fraction * 100))%" : "\(label) \(Int(fraction * 100))%"
        } else {
            text = label
        }
        let textWidth = min(area.width, text.displayWidth)
        buffer.write(text, x: area.x + (area.width - textWidth) / 2, y: area.y, maxWidth: area.width, style: empty)
        let filled: Range<Int>
        if let fraction {
            filled = 0..<Int((Double(area.width) * fraction).rounded(.down))
        } else {
            let block = max(1, area.width / 5)
            let start = area.width > block ? Int(tick.magnitude % UInt(area.width - block + 1)) : 0
            filled = start..<min(area.width, start + block)
        }
        buffer.restyle(Rect(x: area.x.saturatingAdd(filled.lowerBound), y: area.y, width: filled.count, height: 1)) {
            Style(foreground: .background, background: .accent, attributes: $0.attributes)
        }
    }
}
