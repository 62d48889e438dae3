import CardfileCurses
import CardfileTerminal
import Foundation

/// `cardfile-termdemo`: a small screen over the curses backend, for trying the toolkit by hand
/// and for the end-to-end test in tmux. `--theme NAME` picks a theme; `--keys` prints the key
/// table (the README's copy comes from here); `--crash` traps after the first frame.
@main
struct TermDemo {
    static func main() {
        let arguments = CommandLine.arguments
        if arguments.contains("--keys") {
            print(DemoModel.keyMap.markdownTable())
            return
        }
        var themeName: String?
        if let flag = arguments.firstIndex(of: "--theme"), arguments.indices.contains(flag + 1) { themeName = arguments[flag + 1] }
        let (theme, problem) = ThemeLoader().load(themeName)
        let backend: CursesBackend
        do {
            backend = try CursesBackend(theme: theme)
        } catch {
            FileHandle.standardError.write(Data("\(error)\n".utf8))
            exit(2)
        }
        defer { backend.shutdown() }
        var model = DemoModel(size: backend.size)
        if let problem { model.lastKey = problem.description }
        // `--crash`: trap after the first frame (the end-to-end test of crash restoration).
        let crashes = arguments.contains("--crash")
        do {
            while model.running {
                var frame = Buffer(size: backend.size)
                let cursor = model.view(into: &frame)
                try backend.draw(frame, cursor: cursor)
                if crashes { fatalError("crash requested with --crash") }
                guard let event = try backend.nextEvent(timeout: nil) else { continue }
                model.update(event)
                if model.wantsRedraw {
                    model.wantsRedraw = false
                    backend.invalidate()
                }
                if model.wantsSuspend {
                    model.wantsSuspend = false
                    try backend.suspend()
                }
            }
        } catch {
            backend.shutdown()
            FileHandle.standardError.write(Data("\(error)\n".utf8))
            exit(1)
        }
    }
}
