/// A screen of the app: what the stack holds.
enum Screen {
    /// The database's tables.
    case tables(TablesScreen)
    /// A table's records.
    case list(ListScreen)
    /// A record's form, in its own editor context.
    case form(FormScreen)
    /// A table's list opened to choose a record for the form below it: Enter puts the
    /// selected record's `column` into the form's `field`; Esc changes nothing.
    case picker(ListScreen, field: String, column: String)
    /// The SQL screen: a statement to run; its result opens as a list over it.
    case sql(SQLScreen)
}

/// The screens, bottom first: the one on top has the keys (unless an overlay covers it), and
/// Esc or `q` takes it off to show the one below.
///
/// The bottom screen is the tables screen, or a list when one table was asked for (or there
/// is only one); it is never taken off: leaving it quits. A form stands on the list it was
/// opened from, or on the form whose reference it followed; a picker or a list of referencing
/// records stands on the form it was opened from.
struct ScreenStack {
    private(set) var screens: [Screen]
    /// Each screen's number, given when it was put on the stack and never given again: a
    /// message about a screen goes when that number is no longer on top.
    private(set) var numbers: [Int]
    private var lastNumber = 0

    init(_ bottom: Screen) {
        screens = [bottom]
        numbers = [0]
    }

    /// The screen that has the keys.
    var top: Screen { screens[screens.count - 1] }

    /// The top screen's number (see ``numbers``).
    var topNumber: Int { numbers[numbers.count - 1] }

    /// Whether the top screen is the bottom one (leaving it quits).
    var isAtBottom: Bool { screens.count == 1 }

    /// The screen below the top, if any.
    var belowTop: Screen? { screens.count > 1 ? screens[screens.count - 2] : nil }

    mutating func push(_ screen: Screen) {
        screens.append(screen)
        lastNumber += 1
        numbers.append(lastNumber)
    }

    /// Takes the top screen off; the bottom screen stays.
    @discardableResult
    mutating func pop() -> Screen? {
        guard screens.count > 1 else { return nil }
        numbers.removeLast()
        return screens.removeLast()
    }

    /// The form on top.
    var form: FormScreen? {
        if case .form(let form) = top { return form }
        return nil
    }

    /// The list on screen: the top list or picker, or the list a top form was opened from.
    /// Nil on the tables screen and on a form opened by following a reference.
    var list: ListScreen? {
        switch top {
        case .list(let list), .picker(let list, _, _): return list
        case .form:
            if case .list(let list)? = belowTop { return list }
            return nil
        case .tables, .sql: return nil
        }
    }

    /// The SQL screen on top.
    var sql: SQLScreen? {
        if case .sql(let sql) = top { return sql }
        return nil
    }

    /// The field and column a top picker chooses for.
    var picking: (field: String, column: String)? {
        if case .picker(_, let field, let column) = top { return (field, column) }
        return nil
    }

    /// The tables screen, wherever it stands.
    var tables: TablesScreen? {
        for case .tables(let tables) in screens { return tables }
        return nil
    }

    /// Changes the tables screen in place.
    mutating func updateTables(_ change: (inout TablesScreen) -> Void) {
        guard let index = screens.firstIndex(where: { if case .tables = $0 { true } else { false } }),
              case .tables(var tables) = screens[index] else { return }
        change(&tables)
        screens[index] = .tables(tables)
    }

    /// Every form, the top one first: where unsaved edits live.
    var forms: [FormScreen] {
        screens.reversed().compactMap { if case .form(let form) = $0 { form } else { nil } }
    }

    /// Every list and picker (they all follow the terminal's height).
    var lists: [ListScreen] {
        screens.compactMap {
            switch $0 {
            case .list(let list), .picker(let list, _, _): list
            default: nil
            }
        }
    }
}
