/// A short message that disappears by itself.
public struct Toast: Hashable, Sendable {
    public var message: String
    public var role: Role
    /// When it goes away, on the clock the caller uses.
    public var expires: ContinuousClock.Instant

    public init(_ message: String, role: Role = .text, expires: ContinuousClock.Instant) {
        self.message = message
        self.role = role
        self.expires = expires
    }
}

/// The toasts on screen. Time is passed in, so a model drives them from its clock.
public struct ToastStack: Hashable, Sendable {
    public private(set) var toasts: [Toast] = []
    /// How many toasts show at once (never below 0).
    public var limit = 3 {
        didSet { limit = Swift.max(0, limit) }
    }

    public init() {}

    public mutating func show(_ toast: Toast) {
        toasts.append(toast)
        if toasts.count > limit { toasts.removeFirst(toasts.count - limit) }
    }

    /// Drops expired toasts; returns true when any went.
    @discardableResult
    public mutating func expire(now: ContinuousClock.Instant) -> Bool {
        let before = toasts.count
        toasts.removeAll { $0.expires <= now }
        return toasts.count != before
    }

    /// When the next toast expires: the loop's next deadline.
    public var nextDeadline: ContinuousClock.Instant? { toasts.map(\.expires).min() }
}

/// Draws the toasts stacked in the bottom-right corner of `area`, newest at the bottom.
public struct ToastView: Widget {
    public var stack: ToastStack

    public init(_ stack: ToastStack) {
        self.stack = stack
    }

    public func render(in area: Rect, buffer: inout Buffer) {
        let area = area.intersection(buffer.area)   // nothing is drawn outside the buffer
        guard !area.isEmpty else { return }
        var y = area.maxY - 1
        for toast in stack.toasts.reversed() {
            guard y >= area.y else { break }
            let width = min(area.width, toast.message.displayWidth + 2)
            let x = area.maxX - width
            let style = Style(foreground: toast.role, background: .surface, attributes: toast.role == .text ? [] : [.bold])
            buffer.fill(Rect(x: x, y: y, width: width, height: 1), style: style)
            buffer.write(toast.message, x: x + 1, y: y, maxWidth: max(0, width - 2), style: style)
            y -= 1
        }
    }
}
