import Testing
@testable import CardfileTerminal

@Suite("Headless backend and command prompt")
struct HeadlessBackendTests {
    @Test func scriptedEventsFramesAndResize() throws {
        let backend = HeadlessBackend(size: Size(width: 10, height: 2), events: [.key(.char("a"))])
        backend.enqueue([.paste("pasted")])
        #expect(try backend.nextEvent(timeout: .zero) == .key(.char("a")))
        #expect(try backend.nextEvent(timeout: .zero) == .paste("pasted"))
        #expect(try backend.nextEvent(timeout: .zero) == nil)

        var frame = Buffer(size: backend.size)
        frame.write("hello", x: 0, y: 0)
        try backend.draw(frame, cursor: Point(x: 5, y: 0))
        #expect(backend.lines == ["hello     ", "          "])
        #expect(backend.cursor == Point(x: 5, y: 0))
        #expect(backend.cellsWrittenLastFrame == 20)
        frame.write("J", x: 0, y: 0)
        try backend.draw(frame, cursor: nil)
        #expect(backend.cellsWrittenLastFrame == 1)
        backend.invalidate()
        try backend.draw(frame, cursor: nil)
        #expect(backend.cellsWrittenLastFrame == 20)
        #expect(backend.framesDrawn == 3)

        backend.resize(to: Size(width: 4, height: 1))
        #expect(backend.size == Size(width: 4, height: 1))
        #expect(try backend.nextEvent(timeout: .zero) == .resize(Size(width: 4, height: 1)))

        // wake() ends the next wait without an event.
        backend.enqueue([.key(.char("b"))])
        backend.wake()
        #expect(try backend.nextEvent(timeout: nil) == nil)
        #expect(try backend.nextEvent(timeout: nil) == .key(.char("b")))
        try backend.suspend()
        backend.shutdown()
        #expect(backend.isSuspended && backend.isShutDown)
    }

    @Test func commandPromptDrawsThePromptAndCursor() {
        var state = CommandPromptState()
        for character in "sort 中文" { _ = state.handle(.char(character)) }
        var buffer = Buffer(size: Size(width: 12, height: 1))
        CommandPrompt().render(in: buffer.area, buffer: &buffer, state: &state)
        #expect(buffer.line(0) == ":sort 中文  ")
        #expect(buffer[0, 0].style.foreground == .accent)
        #expect(CommandPrompt().cursor(in: buffer.area, state: &state) == Point(x: 10, y: 0))
        var empty = Buffer(size: Size(width: 0, height: 0))
        CommandPrompt().render(in: empty.area, buffer: &empty, state: &state)
        #expect(CommandPrompt().cursor(in: empty.area, state: &state) == nil)
    }
}
