import CardfileStore
import CardfileTerminal
import Foundation

/// The mouse: a click selects a row, a column or a field, a double click opens, the wheel
/// scrolls, a click on a dialog's button presses it. Everything a click does, a key does too.
extension CardfileApp {
    /// Two presses on the same place within this time are a double click.
    static let doubleClickTime: Duration = .milliseconds(400)
    /// Rows the wheel moves a list by.
    static let wheelStep = 3

    /// A click, by what `hits` (the last frame's) says was drawn where it landed.
    func handle(_ mouse: MouseEvent, hits: HitMap, now: ContinuousClock.Instant) -> [AppCommand] {
        let main = mainArea
        let wheel: Int? = switch mouse.kind {
        case .wheelUp: -1
        case .wheelDown: 1
        default: nil
        }
        guard case .press(1) = mouse.kind else {          // the left button (buttons count from 1)
            guard let wheel else { return [] }
            return scroll(by: wheel, now: now)
        }
        let isDouble = lastClick.map { $0.position == mouse.position && now - $0.time <= Self.doubleClickTime } ?? false
        lastClick = isDouble ? nil : (mouse.position, now)

        switch overlay {
        case .question(let asked)?:
            guard let index = asked.dialog.button(at: mouse.position, in: main) else { return [] }
            overlay = nil
            return answer(asked.question, button: index, now: now)
        case nil:
            break
        default:
            return []          // the command line, a filter, help, the conflict dialog: keys only
        }
        guard let (area, target) = hits.target(at: mouse.position) else { return [] }
        switch (target, screens.top) {
        case (.field(let index), .form(let form)):
            form.focusField(index)
        case (.list, .list(let list)), (.list, .picker(let list, _, _)):
            let hit = list.hit(mouse.position, in: area)
            if hit.isHeader, let column = hit.column {
                do { try list.sortByHeader(column: column) } catch { show(error.message, role: .error, now: now) }
                return []
            }
            if let column = hit.column { list.focus(column: column) }
            guard let row = hit.row else { return [] }
            do { try list.select(line: row) } catch { show(error.message, role: .error, now: now) }
            if isDouble { openSelected(now: now) }
        case (.tables, .tables(let tables)):
            guard let index = tables.table(at: mouse.position, in: area) else { return [] }
            screens.updateTables { $0.selected = index }
            if isDouble {
                do { try openList(tables.shown[index]) } catch { show(error.message, role: .error, now: now) }
            }
        default:
            break          // drawn by a screen that is no longer on top
        }
        return []
    }

    /// The wheel: the list moves by a few rows, a form by a field, help and reports scroll.
    private func scroll(by direction: Int, now: ContinuousClock.Instant) -> [AppCommand] {
        switch overlay {
        case .help?, .panel?:
            // As many lines as a list moves rows: one notch a line made long help slow to read.
            return (0..<Self.wheelStep).flatMap { _ in update(.event(.key(KeyEvent(direction > 0 ? .down : .up)))) }
        case nil:
            break
        default:
            return []
        }
        switch screens.top {
        case .form(let form):
            form.scrollFields(by: direction)
        case .list(let list), .picker(let list, _, _):
            do {
                for _ in 0..<Self.wheelStep { _ = try list.handle(direction > 0 ? .down : .up) }
            } catch {
                show(error.message, role: .error, now: now)
            }
        case .tables:
            screens.updateTables { _ = $0.handle(direction > 0 ? .down : .up, page: 1) }
        case .sql(let sql):
            for _ in 0..<Self.wheelStep { sql.editor.handle(KeyEvent(direction > 0 ? .down : .up)) }
        }
        return []
    }

    /// The screen less the status bar and the message line, where screens and dialogs draw.
    var mainArea: Rect {
        Self.parts(of: Rect(x: 0, y: 0, width: size.width, height: size.height)).main
    }
}
