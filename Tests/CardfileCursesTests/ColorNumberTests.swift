import CardfileTerminal
import Testing
@testable import CardfileCurses

@Suite("Colour numbers for ncurses", .timeLimit(.minutes(10)))
struct ColorNumberTests {
    @Test func paletteColoursAreRGBOnDirectColourTerminals() {
        #expect(CursesBackend.colorNumber(.ansi(9), depth: .indexed256) == 9)
        #expect(CursesBackend.colorNumber(.indexed(24), depth: .indexed256) == 24)
        #expect(CursesBackend.colorNumber(.ansi(9), depth: .trueColor) == 0xFF0000)
        #expect(CursesBackend.colorNumber(.indexed(24), depth: .trueColor) == 0x005F87)
        #expect(CursesBackend.colorNumber(.rgb(0x12, 0x34, 0x56), depth: .trueColor) == 0x123456)
        #expect(CursesBackend.colorNumber(.default, depth: .trueColor) == -1)
        #expect(CursesBackend.colorNumber(nil, depth: .ansi8) == -1)
    }
}
