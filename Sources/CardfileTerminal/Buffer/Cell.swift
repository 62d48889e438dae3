/// One cell of the screen.
///
/// A wide glyph (CJK, most emoji) occupies its cell and the next; the next cell is a
/// *continuation* (empty text, width 0) that is never drawn on its own.
public struct Cell: Hashable, Sendable {
    public var text: String
    public var width: UInt8
    public var style: Style
    /// Fills what would be padding (the struct is 24 bytes either way), so two equal cells have
    /// equal bytes and frames can be compared a row at a time with `memcmp` (see
    /// ``Buffer/changes(since:)``).
    private var spacer: UInt32 = 0

    public init(text: String = " ", width: UInt8 = 1, style: Style = .plain) {
        self.text = text
        self.width = width
        self.style = style
    }

    public static let blank = Cell()

    var isContinuation: Bool { width == 0 }

    static func continuation(_ style: Style) -> Cell {
        Cell(text: "", width: 0, style: style)
    }
}
