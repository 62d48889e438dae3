import CardfileTerminal

/// A panel of rows with one chosen (`F`'s values, `:history`'s versions): ↑ ↓, the pages,
/// Home and End move the choice the same way in each.
protocol ChoosingPanel {
    var selected: Int { get }
    /// How many rows there are to choose from.
    var rowCount: Int { get }
    /// Rows the panel shows in `area`.
    func visibleRows(in area: Rect) -> Int
    /// Moves the choice by `rows` (negative: up), keeping it on screen.
    mutating func move(by rows: Int, in area: Rect)
}

extension ChoosingPanel {
    /// Moves the choice as `action` says; false for an action that is not a move.
    mutating func navigate(_ action: AppAction?, in area: Rect) -> Bool {
        let page = visibleRows(in: area)
        switch action {
        case .down?: move(by: 1, in: area)
        case .up?: move(by: -1, in: area)
        case .pageDown?: move(by: page, in: area)
        case .pageUp?: move(by: -page, in: area)
        case .first?: move(by: -selected, in: area)
        case .last?: move(by: rowCount, in: area)
        default: return false
        }
        return true
    }
}
