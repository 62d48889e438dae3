import CardfileTerminal

/// What the demo's keys do. The help overlay is generated from ``DemoModel/keyMap``.
enum DemoAction: Hashable, Sendable {
    case up, down, pageUp, pageDown, left, right, help, quit, redraw, suspend
}

/// The demo's state and its update/view functions: every key goes through ``update(_:)``, and
/// ``view(into:)`` draws the whole screen from the state.
struct DemoModel {
    static let keyMap = KeyMap<DemoAction>([
        KeyBinding([KeyEvent(.up)], .up, help: "Previous row", section: "Table"),
        KeyBinding([KeyEvent(.down)], .down, help: "Next row", section: "Table"),
        KeyBinding([KeyEvent(.pageUp)], .pageUp, help: "Previous page", section: "Table"),
        KeyBinding([KeyEvent(.pageDown)], .pageDown, help: "Next page", section: "Table"),
        KeyBinding([KeyEvent(.tab)], .right, help: "Next column", section: "Table"),
        KeyBinding([KeyEvent(.backTab)], .left, help: "Previous column", section: "Table"),
        KeyBinding([KeyEvent(.function(1)), .alt("h")], .help, help: "Show or hide this help", section: "General"),
        KeyBinding([KeyEvent(.escape), .control("q")], .quit, help: "Quit", section: "General"),
        KeyBinding([.control("l")], .redraw, help: "Redraw the screen", section: "General"),
        KeyBinding([.control("z")], .suspend, help: "Suspend to the shell", section: "General"),
    ])

    static let columns = [TableColumn("#", alignment: .right), TableColumn("Name"), TableColumn("City"), TableColumn("Note", maxWidth: 30)]
    static let rows: [[String]] = {
        let base: [[String]] = [
            ["Ada Lovelace", "London", "first program"],
            ["山田太郎", "東京", "全角の名前"],
            ["Zoë Ünal", "Paris 🇫🇷", "combining é and ü"],
            ["Bell \u{07} Ringer", "Escape\u{1B}[31m", "control characters stay visible"],
            ["Family 👨‍👩‍👧", "Seoul 한국", "emoji and Hangul"],
            ["Grace Hopper", "Arlington", "COBOL"],
        ]
        return (0..<60).map { index in [String(index + 1)] + base[index % base.count] }
    }()

    var field = TextFieldState()
    var selected = 0
    var top = 0
    var focusedColumn = 1
    var showingHelp = false
    var dialog: Dialog?
    var lastKey = "none"
    var size: Size
    var running = true
    var wantsRedraw = false
    var wantsSuspend = false

    init(size: Size) {
        self.size = size
    }

    mutating func update(_ event: Event) {
        switch event {
        case .resize(let newSize):
            size = newSize
        case .terminate:
            running = false
        case .paste(let text):
            field.insert(text)
        case .mouse(let mouse):
            if case .wheelDown = mouse.kind { move(by: 3) }
            if case .wheelUp = mouse.kind { move(by: -3) }
        case .key(let key):
            lastKey = key.description
            if var open = dialog {
                if let pressed = open.handle(key) {
                    if pressed == 0 { running = false }
                    dialog = nil
                } else {
                    dialog = open
                }
                return
            }
            switch DemoModel.keyMap.action(for: key) {
            case .up?: move(by: -1)
            case .down?: move(by: 1)
            case .pageUp?: move(by: -tableHeight)
            case .pageDown?: move(by: tableHeight)
            case .right?: focusedColumn = min(DemoModel.columns.count - 1, focusedColumn + 1)
            case .left?: focusedColumn = max(0, focusedColumn - 1)
            case .help?: showingHelp.toggle()
            case .quit?:
                dialog = Dialog(title: "Quit", message: "Leave the demo?", buttons: [.init("Yes", hotkey: "y"), .init("No", hotkey: "n")], cancelButton: 1)
            case .redraw?: wantsRedraw = true
            case .suspend?: wantsSuspend = true
            case nil: field.handle(key)
            }
        }
    }

    private var tableHeight: Int { max(1, size.height - 4) }

    private mutating func move(by delta: Int) {
        selected = min(max(0, selected + delta), DemoModel.rows.count - 1)
        if selected < top { top = selected }
        if selected >= top + tableHeight { top = selected - tableHeight + 1 }
    }

    /// Draws the screen; returns where the cursor goes.
    mutating func view(into buffer: inout Buffer) -> Point? {
        let area = buffer.area
        guard !area.isEmpty else { return nil }
        let (title, rest) = area.splitTop(1)
        StatusBar(left: "Cardfile terminal demo", right: "\(size.width)×\(size.height)").render(in: title, buffer: &buffer)
        let (middle, bottom) = rest.splitBottom(2)
        let (fieldLine, status) = bottom.splitTop(1)
        let visible = Array(DemoModel.rows[min(top, DemoModel.rows.count)...].prefix(max(0, middle.height - 1)))
        Table(columns: DemoModel.columns, rows: visible,
              marks: visible.indices.map { ($0 + top) % 7 == 2 ? .modified : nil },
              selectedRow: selected - top, focusedColumn: focusedColumn,
              scroll: ScrollPosition(first: top, total: DemoModel.rows.count)).render(in: middle, buffer: &buffer)
        let (label, input) = fieldLine.splitLeft(min(6, fieldLine.width))
        buffer.write("Type:", x: label.x, y: label.y, maxWidth: label.width, style: Style(foreground: .muted))
        TextField(placeholder: "type here").render(in: input, buffer: &buffer, state: &field)
        StatusBar(left: "F1 help", center: "row \(selected + 1) of \(DemoModel.rows.count)", right: "key: \(lastKey)").render(in: status, buffer: &buffer)
        if showingHelp { HelpOverlay(keyMap: DemoModel.keyMap).render(in: area, buffer: &buffer) }
        if let dialog {
            dialog.render(in: area, buffer: &buffer)
            return nil
        }
        return showingHelp ? nil : TextField().cursor(in: input, state: &field)
    }
}
