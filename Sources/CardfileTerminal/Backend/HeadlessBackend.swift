import Foundation

/// A backend without a terminal: frames are kept as buffers, events come from a script.
/// Tests drive whole UIs with it; it records what a real backend would have written.
public final class HeadlessBackend: Backend, @unchecked Sendable {
    private let lock = NSLock()
    private var events: [Event]
    private var woken = false
    public private(set) var size: Size
    /// The last frame drawn.
    public private(set) var screen: Buffer
    /// Where the cursor was left by the last draw.
    public private(set) var cursor: Point?
    /// How many frames were drawn, and how many cells the last one wrote.
    public private(set) var framesDrawn = 0
    public private(set) var cellsWrittenLastFrame = 0
    public private(set) var isSuspended = false
    /// How many times the terminal was handed to another program (`$EDITOR`).
    public private(set) var handOvers = 0
    /// Control sequences written outside frames (OSC 52), in order.
    public private(set) var controlWrites: [String] = []
    public private(set) var isShutDown = false
    private var previous: Buffer?

    public init(size: Size, events: [Event] = []) {
        self.size = size
        self.events = events
        screen = Buffer(size: size)
    }

    /// How many scripted events wait to be read.
    public var queuedEvents: Int {
        lock.lock()
        defer { lock.unlock() }
        return events.count
    }

    /// Adds events to the script.
    public func enqueue(_ newEvents: [Event]) {
        lock.lock()
        events.append(contentsOf: newEvents)
        lock.unlock()
    }

    /// Changes the size and queues the resize event a terminal would send.
    public func resize(to newSize: Size) {
        lock.lock()
        size = newSize
        events.append(.resize(newSize))
        lock.unlock()
    }

    public func draw(_ frame: Buffer, cursor: Point?) throws {
        let runs = frame.changes(since: previous)
        cellsWrittenLastFrame = runs.reduce(0) { $0 + $1.cells.count }
        previous = frame
        screen = frame
        self.cursor = cursor
        framesDrawn += 1
    }

    public func invalidate() {
        previous = nil
    }

    public func nextEvent(timeout: Duration?) throws -> Event? {
        lock.lock()
        defer { lock.unlock() }
        if woken {
            woken = false
            return nil
        }
        return events.isEmpty ? nil : events.removeFirst()
    }

    public func wake() {
        lock.lock()
        woken = true
        lock.unlock()
    }

    public func suspend() throws {
        isSuspended = true
    }

    public func handOver(_ body: () -> Void) throws {
        handOvers += 1
        body()
    }

    public func writeControl(_ sequence: String) {
        controlWrites.append(sequence)
    }

    public func shutdown() {
        isShutDown = true
    }

    /// The screen's lines as text.
    public var lines: [String] { screen.lines }
}
