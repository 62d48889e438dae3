import CardfileStore
import CardfileTerminal
import Foundation

/// Wide tables: hiding, showing, ordering and pinning the list's columns, remembered per
/// database file and table.
extension CardfileApp {
    func changeColumns(_ action: AppAction, now: ContinuousClock.Instant) {
        guard let list else { return }
        switch action {
        case .hideColumn:
            guard let name = list.hideFocusedColumn() else { return show("The last column shown stays.", role: .warning, now: now) }
            show("Hid \(name): + shows every column, :columns chooses.", role: .muted, now: now)
        case .showColumns:
            list.showAllColumns()
            show("Every column shown.", role: .muted, now: now)
        case .pinKey:
            guard list.setPinned(!list.pinned) else { return show("\(list.table.name) has no key column to pin.", role: .warning, now: now) }
            show(list.pinned ? "The key stays at the left." : "The key scrolls with the rest.", role: .muted, now: now)
        case .toggleWidth:
            guard let (name, width) = list.toggleFocusedWidth() else { return }
            show(width.map { "\(name) is \($0) wide: _ again gives it back its natural width." } ?? "\(name) has its natural width again.", role: .muted, now: now)
        case .narrowColumn, .widenColumn:
            guard let (name, width) = list.resizeFocused(by: action == .narrowColumn ? -2 : 2) else { return }
            show("\(name) is \(width) wide: _ gives it back its natural width.", role: .muted, now: now)
        default:
            return
        }
        rememberColumns(of: list, now: now)
    }

    /// `:columns`: with names, shows those in that order; alone, opens the command line with
    /// the current list to edit; `all`, every column.
    func chooseColumns(_ names: [String], now: ContinuousClock.Instant) {
        guard let list, form == nil else { return show("Columns are chosen in a table's list.", role: .warning, now: now) }
        if names.isEmpty {
            openCommandLine(typed: "columns " + list.columns.map(\.name).joined(separator: " "))
            let hidden = list.allColumns.filter { column in !list.columns.contains { $0.name == column.name } }.map(\.name)
            if !hidden.isEmpty { show("Hidden: \(hidden.joined(separator: " "))", role: .muted, now: now) }
            return
        }
        if names.count == 1, names[0].lowercased() == "all" {
            list.showAllColumns()
        } else {
            let unknown = list.choose(names)
            guard unknown.isEmpty else {
                return show("\(list.table.name) has no column \(unknown.joined(separator: ", ")). Its columns: \(list.allColumns.map(\.name).joined(separator: " ")).",
                            role: .warning, now: now)
            }
        }
        show("Columns: \(list.columns.map(\.name).joined(separator: " ")).", role: .muted, now: now)
        rememberColumns(of: list, now: now)
    }

    /// Keeps the list's choice for this session and writes it to the file off the loop (in
    /// order: the errands' queue is serial); a failure comes back as a warning.
    private func rememberColumns(of list: ListScreen, now: ContinuousClock.Instant) {
        let (choice, table) = (list.choice, list.table.name)
        columnChoices[table] = choice
        let memory = ColumnMemory(folder: options.stateFolder)
        let database = container.path
        errands.run {
            do {
                try memory.remember(choice, database: database, table: table)
                return nil
            } catch {
                return .columnsNotRemembered(error.localizedDescription)
            }
        }
    }
}
