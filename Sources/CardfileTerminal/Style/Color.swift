import Foundation

/// A colour as a theme names it.
public enum Color: Hashable, Sendable {
    /// The terminal's own foreground or background.
    case `default`
    /// One of the 16 ANSI colours (0–7 normal, 8–15 bright).
    case ansi(UInt8)
    /// One of the 256 xterm colours.
    case indexed(UInt8)
    /// A 24-bit colour.
    case rgb(UInt8, UInt8, UInt8)

    static let ansiNames = ["black", "red", "green", "yellow", "blue", "magenta", "cyan", "white"]

    /// Parses `#rrggbb`, `default`, an ANSI name (`red`, `bright-blue`) or nothing.
    public init?(parsing text: String) {
        let name = text.trimmingCharacters(in: .whitespaces).lowercased()
        if name == "default" {
            self = .default
        } else if name.hasPrefix("#"), name.count == 7, let value = UInt32(name.dropFirst(), radix: 16) {
            self = .rgb(UInt8(value >> 16), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF))
        } else if let index = Color.ansiNames.firstIndex(of: name) {
            self = .ansi(UInt8(index))
        } else if name.hasPrefix("bright-"), let index = Color.ansiNames.firstIndex(of: String(name.dropFirst(7))) {
            self = .ansi(UInt8(index + 8))
        } else {
            return nil
        }
    }

    /// The colour's red, green and blue (palette colours as xterm's palette has them); nil
    /// for the terminal's default colour.
    public var rgbComponents: (red: Int, green: Int, blue: Int)? {
        switch self {
        case .default: return nil
        case .ansi(let index), .indexed(let index):
            let (r, g, b) = Color.rgbOfIndexed(index)
            return (r, g, b)
        case .rgb(let r, let g, let b): return (Int(r), Int(g), Int(b))
        }
    }

    /// The colour as a terminal with `depth` can show it: nearest match, or nil for none.
    public func degraded(to depth: ColorDepth) -> Color? {
        switch (self, depth) {
        case (_, .none): return nil
        case (.default, _): return .default
        case (.ansi(let index), .ansi8): return .ansi(index % 8)
        case (.ansi, _): return self
        case (.indexed(let index), .ansi8), (.indexed(let index), .ansi16):
            let (r, g, b) = Color.rgbOfIndexed(index)
            return Color.nearestANSI(UInt8(r), UInt8(g), UInt8(b), count: depth == .ansi8 ? 8 : 16)
        case (.indexed, _): return self
        case (.rgb, .trueColor): return self
        case (.rgb(let r, let g, let b), .indexed256): return .indexed(Color.nearestIndexed(r, g, b))
        case (.rgb(let r, let g, let b), .ansi16): return Color.nearestANSI(r, g, b, count: 16)
        case (.rgb(let r, let g, let b), .ansi8): return Color.nearestANSI(r, g, b, count: 8)
        }
    }

    // xterm's palette, as the degradation targets.
    private static let ansiRGB: [(UInt8, UInt8, UInt8)] = [
        (0, 0, 0), (205, 0, 0), (0, 205, 0), (205, 205, 0), (0, 0, 238), (205, 0, 205), (0, 205, 205), (229, 229, 229),
        (127, 127, 127), (255, 0, 0), (0, 255, 0), (255, 255, 0), (92, 92, 255), (255, 0, 255), (0, 255, 255), (255, 255, 255),
    ]
    private static let cubeLevels: [Int] = [0, 95, 135, 175, 215, 255]

    static func rgbOfIndexed(_ index: UInt8) -> (Int, Int, Int) {
        let i = Int(index)
        if i < 16 { let c = ansiRGB[i]; return (Int(c.0), Int(c.1), Int(c.2)) }
        if i >= 232 { let level = 8 + (i - 232) * 10; return (level, level, level) }
        let cube = i - 16
        return (cubeLevels[cube / 36], cubeLevels[(cube / 6) % 6], cubeLevels[cube % 6])
    }

    private static func distance(_ a: (Int, Int, Int), _ b: (Int, Int, Int)) -> Int {
        // Weighted for the eye's sensitivity (a cheap stand-in for a perceptual distance).
        let dr = a.0 - b.0, dg = a.1 - b.1, db = a.2 - b.2
        return 3 * dr * dr + 4 * dg * dg + 2 * db * db
    }

    static func nearestIndexed(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> UInt8 {
        let target = (Int(r), Int(g), Int(b))
        func nearestLevel(_ value: Int) -> Int {
            cubeLevels.indices.min { abs(cubeLevels[$0] - value) < abs(cubeLevels[$1] - value) }!
        }
        let cube = 16 + 36 * nearestLevel(target.0) + 6 * nearestLevel(target.1) + nearestLevel(target.2)
        let grayLevel = max(0, min(23, ((target.0 + target.1 + target.2) / 3 - 8 + 5) / 10))
        let gray = 232 + grayLevel
        return distance(rgbOfIndexed(UInt8(cube)), target) <= distance(rgbOfIndexed(UInt8(gray)), target) ? UInt8(cube) : UInt8(gray)
    }

    static func nearestANSI(_ r: UInt8, _ g: UInt8, _ b: UInt8, count: Int) -> Color {
        let target = (Int(r), Int(g), Int(b))
        func rgb(_ index: Int) -> (Int, Int, Int) {
            let color = ansiRGB[index]
            return (Int(color.0), Int(color.1), Int(color.2))
        }
        var best = 0
        for index in 1..<count where distance(rgb(index), target) < distance(rgb(best), target) {
            best = index
        }
        return .ansi(UInt8(best))
    }
}

/// How many colours a terminal shows.
public enum ColorDepth: Int, Hashable, Sendable, Comparable {
    case none = 0, ansi8, ansi16, indexed256, trueColor

    /// From the number of colours terminfo reports.
    public init(colors: Int) {
        switch colors {
        case ..<8: self = .none
        case 8..<16: self = .ansi8
        case 16..<256: self = .ansi16
        case 256..<(1 << 24): self = .indexed256
        default: self = .trueColor
        }
    }

    public static func < (lhs: ColorDepth, rhs: ColorDepth) -> Bool { lhs.rawValue < rhs.rawValue }
}
