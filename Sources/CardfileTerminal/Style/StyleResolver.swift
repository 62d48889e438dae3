/// A style as a terminal shows it: colours degraded to what it has, attributes added by the
/// theme. Terminals without colour get the `mono` theme's attributes, so the selection, errors
/// and marks stay visible.
public struct ResolvedStyle: Hashable, Sendable {
    public let foreground: Color?
    public let background: Color?
    public let attributes: Attributes
}

public struct StyleResolver: Sendable {
    public let theme: Theme
    public let depth: ColorDepth
    private let attributeTheme: Theme

    public init(theme: Theme, depth: ColorDepth) {
        self.theme = theme
        self.depth = depth
        attributeTheme = depth == .none ? (Theme.builtin("mono") ?? theme) : theme
    }

    public func resolve(_ style: Style) -> ResolvedStyle {
        var attributes = style.attributes
        attributes.formUnion(attributeTheme.attributes[style.foreground] ?? [])
        if style.background != .background {
            attributes.formUnion(attributeTheme.attributes[style.background] ?? [])
        }
        return ResolvedStyle(
            foreground: theme.color(style.foreground).degraded(to: depth),
            background: theme.color(style.background).degraded(to: depth),
            attributes: attributes)
    }
}
