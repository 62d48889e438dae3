import CCursesSupport
import CNCurses
import CardfileTerminal
import Dispatch
import Foundation

/// Why the terminal could not be taken over.
public enum CursesError: Error, CustomStringConvertible, Sendable {
    /// ncurses does not know the terminal type (`TERM`).
    case unknownTerminal(String)
    /// Standard input is not a terminal.
    case notATerminal

    public var description: String {
        switch self {
        case .unknownTerminal(let name):
            return "The terminal type “\(name)” is unknown to this system (set TERM to one it knows, such as xterm-256color)."
        case .notATerminal:
            return "Cardfile needs a terminal: standard input is not one."
        }
    }
}

/// The ``Backend`` over ncursesw.
///
/// Taking the terminal: locale from the environment (UTF-8 character type forced when it is
/// not), raw mode (so Ctrl-C, Ctrl-S, Ctrl-Q and Ctrl-Z reach the program: XON/XOFF flow
/// control is off), no echo, keypad and mouse reporting (SGR), bracketed paste, the terminal's
/// default colours, and as many colours as terminfo says it has (themes degrade to them).
///
/// Drawing: each frame is diffed against the last one and only changed runs of cells are
/// handed to ncurses, then flushed once (`doupdate`); ``invalidate()`` makes the next frame
/// repaint everything (Ctrl-L). Input is read and decoded here (``KeyDecoder``), not by
/// ncurses, so bracketed paste and modifiers work everywhere.
///
/// Giving it back: ``shutdown()``, and also on SIGTERM/SIGINT/SIGHUP (delivered as
/// ``Event/terminate`` so the program can clean up), on `exit()`, and on a crash. A terminal
/// without cursor addressing (`TERM=dumb`) gets a degraded mode: each changed frame is
/// printed as plain lines.
public final class CursesBackend: Backend {
    private var screen: OpaquePointer?
    private let inputDescriptor: Int32
    private let wakePipe: (read: Int32, write: Int32)
    private var decoder = KeyDecoder()
    /// When input last arrived: held-back bytes are flushed only once the decoder's delay has
    /// passed since then, never because a caller's shorter deadline ran out.
    private var lastInput = ContinuousClock.now
    private var queued: [Event] = []
    private var previous: Buffer?
    private var styleResolver: StyleResolver
    private var attributeCache: [Style: (attr_t, Int16)] = [:]
    private var pairs: [PairKey: Int16] = [:]
    private let signalState = SignalState()
    private var signalSources: [DispatchSourceSignal] = []
    private let plain: Bool
    /// Mouse reporting is on (off with `--no-mouse`).
    private let mouse: Bool
    /// SGR mouse reports (any size of screen) when the mouse is on, and bracketed paste.
    private var modesOn: String { (mouse ? "\u{1B}[?1006h" : "") + "\u{1B}[?2004h" }
    private let managesModes: Bool
    private var isActive = false
    private var output: UnsafeMutablePointer<FILE>
    public private(set) var size: Size
    /// The colours the terminal shows.
    public let colorDepth: ColorDepth

    private struct PairKey: Hashable {
        let foreground: Int32
        let background: Int32
    }

    /// What signals asked for, set on a dispatch queue and read by the loop.
    private final class SignalState: @unchecked Sendable {
        private let lock = NSLock()
        private var resized = false
        private var terminate = false

        func set(resized value: Bool = false, terminate stop: Bool = false) {
            lock.lock()
            resized = resized || value
            terminate = terminate || stop
            lock.unlock()
        }

        func take() -> (resized: Bool, terminate: Bool) {
            lock.lock()
            defer { resized = false; terminate = false; lock.unlock() }
            return (resized, terminate)
        }
    }

    /// Takes over the terminal on standard input and output.
    /// - Parameters:
    ///   - theme: how roles look.
    ///   - terminalType: overrides `TERM` (tests and benchmarks).
    ///   - output: where to write (standard output by default); with another stream and
    ///     `size`, the backend runs without a terminal (benchmarks count its bytes).
    /// - Throws: ``CursesError``.
    ///   - mouse: report the mouse to the program; false leaves clicks and selection to the
    ///     terminal (`--no-mouse`).
    public init(theme: Theme, terminalType: String? = nil, output: UnsafeMutablePointer<FILE>? = nil, size fixedSize: Size? = nil, mouse: Bool = true) throws {
        self.mouse = mouse
        if setlocale(LC_ALL, "") == nil || !String(cString: setlocale(LC_CTYPE, nil)).uppercased().contains("UTF") {
            setlocale(LC_CTYPE, "C.UTF-8")
        }
        inputDescriptor = STDIN_FILENO
        self.output = output ?? cf_stdout()
        managesModes = output == nil
        if managesModes, isatty(STDIN_FILENO) == 0 { throw CursesError.notATerminal }
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw CursesError.notATerminal }
        wakePipe = (fds[0], fds[1])
        _ = fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK)
        _ = fcntl(fds[1], F_SETFL, fcntl(fds[1], F_GETFL) | O_NONBLOCK)

        let name = terminalType ?? ProcessInfo.processInfo.environment["TERM"] ?? "dumb"
        let stream = self.output
        let created: OpaquePointer? = name.withCString { newterm(UnsafeMutablePointer(mutating: $0), stream, cf_stdin()) }
        guard let created else {
            close(fds[0])
            close(fds[1])
            throw CursesError.unknownTerminal(name)
        }
        screen = created
        set_term(created)
        isActive = true
        plain = cf_has_cursor_addressing() == 0
        raw()
        noecho()
        nonl()
        intrflush(cf_stdscr(), false)
        keypad(cf_stdscr(), true)
        set_escdelay(25)
        if has_colors() {
            start_color()
            use_default_colors()
            colorDepth = ColorDepth(colors: Int(cf_colors()))
        } else {
            colorDepth = .none
        }
        styleResolver = StyleResolver(theme: theme, depth: colorDepth)
        if let fixedSize { resizeterm(Int32(fixedSize.height), Int32(fixedSize.width)) }
        size = Size(width: Int(cf_cols()), height: Int(cf_lines()))
        _ = curs_set(0)
        if managesModes, !plain {
            if mouse { mousemask(cf_all_mouse_events(), nil) }
            emit(modesOn)
        }
        cf_screen_up(1)
        cf_install_crash_handlers()
        cf_install_exit_handler()
        if managesModes { installSignalHandlers() }
    }

    deinit {
        shutdown()
        close(wakePipe.read)
        close(wakePipe.write)
    }

    /// Changes how roles look (takes effect at the next frame).
    public func setTheme(_ theme: Theme) {
        styleResolver = StyleResolver(theme: theme, depth: colorDepth)
        attributeCache.removeAll()
        invalidate()
    }

    private func installSignalHandlers() {
        let queue = DispatchQueue(label: "cardfile.signals")
        let wake = wakePipe.write
        let state = signalState
        for number in [SIGWINCH, SIGTERM, SIGINT, SIGHUP] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler {
                state.set(resized: number == SIGWINCH, terminate: number != SIGWINCH)
                var byte: UInt8 = 1
                _ = write(wake, &byte, 1)
            }
            source.resume()
            signalSources.append(source)
        }
    }

    private func emit(_ sequence: String) {
        fputs(sequence, output)
        fflush(output)
    }

    public func writeControl(_ sequence: String) {
        guard isActive, !plain else { return }
        emit(sequence)
    }

    // MARK: - Drawing

    public func draw(_ frame: Buffer, cursor: Point?) throws {
        guard isActive else { return }
        if plain {
            drawPlain(frame)
            return
        }
        let window = cf_stdscr()
        var text: [wchar_t] = []
        text.reserveCapacity(frame.size.width + 1)
        var current: (attr_t, Int16)?
        func flushText() {
            guard !text.isEmpty else { return }
            text.append(0)
            _ = waddnwstr(window, text, Int32(text.count - 1))
            text.removeAll(keepingCapacity: true)
        }
        for run in frame.changes(since: previous) {
            guard run.y < Int(cf_lines()) else { continue }
            flushText()
            wmove(window, Int32(run.y), Int32(run.x))
            for cell in run.cells where cell.width != 0 {
                let attributes = attributes(for: cell.style)
                if current == nil || current! != attributes {
                    flushText()
                    wattr_set(window, attributes.0, attributes.1, nil)
                    current = attributes
                }
                for scalar in cell.text.unicodeScalars { text.append(wchar_t(bitPattern: scalar.value)) }
            }
            flushText()
        }
        if let cursor, cursor.x < size.width, cursor.y < size.height {
            _ = curs_set(1)
            wmove(window, Int32(cursor.y), Int32(cursor.x))
        } else {
            _ = curs_set(0)
        }
        wnoutrefresh(window)
        doupdate()
        previous = frame
    }

    /// Terminals that cannot move the cursor get each changed frame as plain lines: exactly one
    /// screenful, with the line break between frames rather than after them, so a frame
    /// fills the screen without scrolling its first line away.
    private func drawPlain(_ frame: Buffer) {
        guard frame != previous else { return }
        let lines = frame.lines.map { line -> String in
            var trimmed = line
            while trimmed.last == " " { trimmed.removeLast() }
            return trimmed
        }
        fputs((previous == nil ? "" : "\r\n") + lines.joined(separator: "\r\n"), output)
        fflush(output)
        previous = frame
    }

    /// ncurses attributes and colour pair for a style, cached per style.
    private func attributes(for style: Style) -> (attr_t, Int16) {
        if let cached = attributeCache[style] { return cached }
        let resolved = styleResolver.resolve(style)
        var attributes = cf_a_normal()
        if resolved.attributes.contains(.bold) { attributes |= cf_a_bold() }
        if resolved.attributes.contains(.dim) { attributes |= cf_a_dim() }
        if resolved.attributes.contains(.underline) { attributes |= cf_a_underline() }
        if resolved.attributes.contains(.reverse) { attributes |= cf_a_reverse() }
        if resolved.attributes.contains(.italic) { attributes |= cf_a_italic() }
        let pair = colorPair(foreground: resolved.foreground, background: resolved.background)
        attributeCache[style] = (attributes, pair)
        return (attributes, pair)
    }

    private func colorNumber(_ color: Color?) -> Int32 {
        Self.colorNumber(color, depth: colorDepth)
    }

    /// The ncurses colour number for a colour. A direct-colour terminal (true colour) reads a
    /// number as an RGB value, so palette colours are sent as their RGB there.
    static func colorNumber(_ color: Color?, depth: ColorDepth) -> Int32 {
        guard let color, let components = color.rgbComponents else { return -1 }
        switch color {
        case .ansi(let index) where depth != .trueColor, .indexed(let index) where depth != .trueColor:
            return Int32(index)
        default:
            return (Int32(components.red) << 16) | (Int32(components.green) << 8) | Int32(components.blue)
        }
    }

    /// A colour pair for the two colours, allocated once. When the terminal runs out of pairs,
    /// the default pair is used.
    private func colorPair(foreground: Color?, background: Color?) -> Int16 {
        guard colorDepth != .none else { return 0 }
        let key = PairKey(foreground: colorNumber(foreground), background: colorNumber(background))
        if key.foreground == -1, key.background == -1 { return 0 }
        if let pair = pairs[key] { return pair }
        let number = pairs.count + 1
        guard number < min(Int(cf_color_pairs()), Int(Int16.max)) else { return 0 }
        if colorDepth == .trueColor {
            init_extended_pair(Int32(number), key.foreground, key.background)
        } else {
            init_pair(Int16(number), Int16(key.foreground), Int16(key.background))
        }
        pairs[key] = Int16(number)
        return Int16(number)
    }

    public func invalidate() {
        if plain {
            // Reprint the frame, below the last one.
            previous = previous.map { _ in Buffer(size: Size(width: 0, height: 0)) }
            return
        }
        previous = nil
        if isActive { clearok(cf_curscr(), true) }
    }

    // MARK: - Input

    public func nextEvent(timeout: Duration?) throws -> Event? {
        if !queued.isEmpty { return queued.removeFirst() }
        let deadline = timeout.map { ContinuousClock.now + $0 }
        while true {
            let signals = signalState.take()
            if signals.terminate { return .terminate }
            if signals.resized, let resized = handleResize() { return resized }
            var wait: Int32 = -1
            if let deadline {
                let left = deadline - ContinuousClock.now
                let milliseconds = left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000
                wait = Int32(clamping: max(0, milliseconds))
            }
            // A lone ESC waits only the escape delay for the rest of a sequence, a paste a
            // little longer for its end marker.
            if let delay = decoder.pendingDelay {
                let left = max(.zero, lastInput + delay - ContinuousClock.now)
                let milliseconds = Int32(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000) + 1
                wait = wait < 0 ? milliseconds : min(wait, milliseconds)
            }
            let ready = cf_wait_readable(inputDescriptor, wakePipe.read, wait)
            // A signal interrupted the wait: go round again (the signal's own work arrives
            // through the wake pipe); a pending ESC must not be taken for the Escape key early.
            if ready < 0 { continue }
            if ready & 2 != 0 {
                var drain = [UInt8](repeating: 0, count: 64)
                while read(wakePipe.read, &drain, 64) > 0 {}
                let pending = signalState.take()
                if pending.terminate { return .terminate }
                if pending.resized, let resized = handleResize() { return resized }
                if ready & 1 == 0 { return nil }
            }
            if ready & 1 != 0 {
                var bytes = [UInt8](repeating: 0, count: 4096)
                let count = read(inputDescriptor, &bytes, bytes.count)
                if count <= 0 { return .terminate }           // the terminal went away
                let now = ContinuousClock.now
                queued += decoder.feed(bytes[0..<count], afterPause: now - lastInput)
                lastInput = now
            } else if let delay = decoder.pendingDelay, ContinuousClock.now - lastInput >= delay {
                queued += decoder.flush()
            }
            if !queued.isEmpty { return queued.removeFirst() }
            if let deadline, ContinuousClock.now >= deadline { return nil }
        }
    }

    private func handleResize() -> Event? {
        var rows: Int32 = 0
        var columns: Int32 = 0
        guard cf_window_size(inputDescriptor, &rows, &columns) != 0 else { return nil }
        resizeterm(rows, columns)
        size = Size(width: Int(columns), height: Int(rows))
        invalidate()
        return .resize(size)
    }

    public func wake() {
        var byte: UInt8 = 0
        _ = write(wakePipe.write, &byte, 1)
    }

    // MARK: - Giving the terminal back

    public func suspend() throws {
        guard isActive, managesModes else { return }
        leaveTerminal()
        cf_stop_self()
        // Resumed (SIGCONT): take the terminal again, mouse included, and repaint.
        retakeTerminal()
    }

    public func handOver(_ body: () -> Void) throws {
        guard isActive, managesModes else { return body() }
        leaveTerminal()
        body()
        retakeTerminal()
        // Keys typed into the other program that it left unread are not the editor's.
        decoder = KeyDecoder()
        tcflush(inputDescriptor, TCIFLUSH)
    }

    private func retakeTerminal() {
        if !plain, mouse {
            mousemask(cf_all_mouse_events(), nil)
        }
        if !plain { emit(modesOn) }
        reset_prog_mode()
        if let resized = handleResize() { queued.append(resized) }
        invalidate()
        refresh()
    }

    private func leaveTerminal() {
        if !plain, managesModes {
            emit("\u{1B}[?2004l" + (mouse ? "\u{1B}[?1006l" : ""))
            if mouse { mousemask(0, nil) }
        }
        _ = curs_set(1)
        endwin()
    }

    public func shutdown() {
        guard isActive else { return }
        isActive = false
        for source in signalSources { source.cancel() }
        signalSources.removeAll()
        cf_screen_up(0)
        leaveTerminal()
        if let screen { delscreen(screen) }
        screen = nil
        for number in [SIGWINCH, SIGTERM, SIGINT, SIGHUP] { signal(number, SIG_DFL) }
    }
}
