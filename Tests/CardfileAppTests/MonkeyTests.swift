import CardfileApp
import CardfileStore
import CardfileTerminal
import CardfileTestSupport
import Foundation
import Testing

/// Random keys, pastes, resizes (down to 1×1) and clock jumps against the demo database: the
/// editor never crashes, and the file stays sound.
@Suite("Monkey")
struct MonkeyTests {
    static let keys: [KeyEvent] = {
        var keys = KeyMaps.all.flatMap { $0.map.bindings.flatMap(\.keys) }
        keys += "abcxyz019 .-'é漢👍".map { KeyEvent(.character($0)) }
        keys += [KeyEvent(.escape), KeyEvent(.enter), KeyEvent(.tab), KeyEvent(.backspace), .char("s"), .char("d"), .char("c"),
                 .char("y"), .char("n"), .control("x"), .alt("x"), KeyEvent(.function(5))]
        // Quitting ends a round; keep it rare so the rounds are long.
        return keys.filter { $0 != .control("q") && $0 != .char("q") }
    }()

    @Test func tenThousandRandomKeysNeverCrash() throws {
        let seed = Fuzz.seed()
        var random = SeededRandom(seed: seed)
        // Ctrl-O runs a real "editor" that changes the text (never one that waits for input).
        let options = CardfileApp.Options(autosave: .seconds(1), editor: "sed -i s/a/A/")
        let harness = try AppHarness(options: options, demoRows: 300)
        var app = harness.app
        let total = Fuzz.scaled(10_000)
        var restarts = 0
        for step in 0..<total {
            switch random.next(below: 100) {
            case 0..<3:
                let sizes = [Size(width: 1, height: 1), Size(width: 10, height: 4), Size(width: 40, height: 12), Size(width: 80, height: 24),
                             Size(width: 200, height: 60), Size(width: 0, height: 0), Size(width: 3, height: 30)]
                harness.backend.resize(to: sizes[random.next(below: sizes.count)])
            case 3..<5:
                harness.clock.advance(.milliseconds(Int64(random.next(below: 3000))))
            case 5:
                harness.backend.enqueue([.paste(["pasted", "two\nlines", "\u{1B}[31mred", "   "][random.next(below: 4)])])
            case 7, 8:
                // Clicks, double clicks, drags and the wheel anywhere, also off the screen.
                let kinds: [MouseEvent.Kind] = [.press(button: 1), .press(button: 1), .release, .press(button: 3), .drag(button: 1), .wheelUp, .wheelDown]
                let point = Point(x: random.next(below: 220) - 10, y: random.next(below: 70) - 5)
                let event = Event.mouse(MouseEvent(kind: kinds[random.next(below: kinds.count)], position: point))
                harness.backend.enqueue(random.next(below: 4) == 0 ? [event, event] : [event])
            case 6 where random.next(below: 20) == 0:
                harness.backend.enqueue([.key(.control("q"))])
            default:
                harness.backend.enqueue([.key(Self.keys[random.next(below: Self.keys.count)])])
            }
            try AppLoop.run(app, backend: harness.backend, inbox: harness.inbox, clock: harness.clock, untilIdle: true)
            if !app.isRunning {
                restarts += 1
                var again = options
                again.workingFolder = harness.directory.path
                app = try CardfileApp(container: harness.container, options: again,
                                      size: harness.backend.size, clock: harness.clock, inbox: harness.inbox)
            }
            if step % 1000 == 999 {
                #expect(try harness.diskText("PRAGMA integrity_check") == "ok", "seed \(seed) (CARDFILE_SEED=\(seed) replays it), step \(step)")
            }
        }
        #expect(try harness.diskText("PRAGMA integrity_check") == "ok", "seed \(seed)")
        #expect(try harness.disk("PRAGMA foreign_key_check") == .null, "seed \(seed)")
        print("monkey: \(total) steps, \(restarts) restarts, seed \(seed)")
    }
}
