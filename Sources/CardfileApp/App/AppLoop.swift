import CardfileTerminal
import Foundation

/// Drives an app on a backend: draw, wait for an event or the next deadline, update, repeat.
public enum AppLoop {
    /// Runs until the app quits (or, with `untilIdle`, until no event is waiting: tests drive
    /// the headless backend this way). `applyTheme` switches the backend's theme.
    public static func run(
        _ app: CardfileApp, backend: Backend, inbox: Inbox, clock: AppClock, untilIdle: Bool = false,
        applyTheme: (Theme) -> Void = { _ in }
    ) throws {
        // A wake-up also ends a wait without an event: idle means two waits in a row that
        // brought nothing.
        var quietWaits = 0
        while app.isRunning {
            var frame = Buffer(size: backend.size)
            let drawn = app.render(into: &frame)
            try backend.draw(frame, cursor: drawn.cursor)
            let timeout = untilIdle ? Duration.zero : app.nextDeadline.map { max(.zero, $0 - clock.now) }
            let event = try backend.nextEvent(timeout: timeout)
            var commands: [AppCommand] = []
            for message in inbox.take() { commands += app.update(message) }
            if let event { commands += app.update(.event(event), hits: drawn.hits) }
            commands += app.tick()
            let acted = !commands.isEmpty
            while !commands.isEmpty {
                switch commands.removeFirst() {
                case .suspend: try backend.suspend()
                case .redraw: backend.invalidate()
                case .setTheme(let theme):
                    applyTheme(theme)
                    backend.invalidate()
                case .editExternally(let request):
                    var outcome = ExternalEdit.Outcome.unchanged
                    try backend.handOver { outcome = request.run() }
                    commands += app.update(.externalEdit(request, outcome))
                case .writeControl(let sequence):
                    backend.writeControl(sequence)
                }
            }
            quietWaits = event == nil && !acted ? quietWaits + 1 : 0
            if untilIdle, quietWaits >= 2 { break }
        }
        if untilIdle {
            var frame = Buffer(size: backend.size)
            let cursor = app.view(into: &frame)
            try backend.draw(frame, cursor: cursor)
        }
    }
}
