/// A number written in decimal, read digit by digit rather than through `Double`, so that a
/// caller can tell whether a 64-bit integer or a REAL holds it exactly.
///
/// The grammar is SQLite's for a numeric literal: an optional sign, digits with an optional
/// point (`12`, `3.5`, `.5`, `5.`), and an optional exponent (`1e-3`). Hexadecimal (`0x10`),
/// `inf` and `nan`, which Swift's `Double(_:)` would take, are not numbers here.
struct DecimalText: Equatable {
    let negative: Bool
    /// The significant digits (0–9), without leading or trailing zeros: empty for zero.
    let digits: [UInt8]
    /// The value is `digits × 10^exponent`.
    let exponent: Int
    /// Written with a point or an exponent (`1.0`, `1e3`), not as an integer.
    let writtenAsReal: Bool

    /// Reads `text`, which must be the number and nothing else (a caller trims it first if
    /// spaces around it are allowed); nil when it is not a decimal number.
    init?(_ text: Substring) {
        var bytes = text.utf8[...]
        var negative = false
        if let sign = bytes.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") {
            negative = sign == UInt8(ascii: "-")
            bytes = bytes.dropFirst()
        }
        var digits: [UInt8] = []
        var exponent = 0
        var sawDigit = false
        var sawPoint = false
        var writtenAsReal = false
        while let byte = bytes.first {
            if byte >= 0x30, byte <= 0x39 {
                sawDigit = true
                if !digits.isEmpty || byte != 0x30 { digits.append(byte - 0x30) }
                if sawPoint { exponent -= 1 }
            } else if byte == UInt8(ascii: "."), !sawPoint {
                sawPoint = true
                writtenAsReal = true
            } else {
                break
            }
            bytes = bytes.dropFirst()
        }
        guard sawDigit else { return nil }
        if let marker = bytes.first, marker == UInt8(ascii: "e") || marker == UInt8(ascii: "E") {
            writtenAsReal = true
            bytes = bytes.dropFirst()
            var exponentNegative = false
            if let sign = bytes.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") {
                exponentNegative = sign == UInt8(ascii: "-")
                bytes = bytes.dropFirst()
            }
            var written = 0
            var sawExponentDigit = false
            while let byte = bytes.first, byte >= 0x30, byte <= 0x39 {
                sawExponentDigit = true
                // Far beyond any double's range; capped so a long exponent cannot overflow.
                written = min(written * 10 + Int(byte - 0x30), 1_000_000_000)
                bytes = bytes.dropFirst()
            }
            guard sawExponentDigit else { return nil }
            exponent += exponentNegative ? -written : written
        }
        guard bytes.isEmpty else { return nil }
        while digits.last == 0 {
            digits.removeLast()
            exponent += 1
        }
        self.negative = negative
        self.digits = digits
        self.exponent = digits.isEmpty ? 0 : exponent
        self.writtenAsReal = writtenAsReal
    }

    var isZero: Bool { digits.isEmpty }

    /// A finite double's exact value: its 53-bit significand times a power of two, written out
    /// in decimal (a negative power as a power of five times a power of ten).
    static func exact(_ double: Double) -> DecimalText {
        guard double != 0, double.isFinite else { return DecimalText("0")! }
        var significand = double.significandBitPattern | (double.isNormal ? 1 << 52 : 0)
        var power = Int(double.exponentBitPattern) - 1075 + (double.isNormal ? 0 : 1)
        while significand & 1 == 0 {
            significand >>= 1
            power += 1
        }
        var digits = Array(String(significand).utf8.map { $0 - 0x30 })   // most significant first
        func multiply(by factor: UInt8) {
            var carry = 0
            for index in digits.indices.reversed() {
                let product = Int(digits[index]) * Int(factor) + carry
                digits[index] = UInt8(product % 10)
                carry = product / 10
            }
            while carry > 0 {
                digits.insert(UInt8(carry % 10), at: 0)
                carry /= 10
            }
        }
        var exponent = 0
        if power >= 0 {
            for _ in 0..<power { multiply(by: 2) }
        } else {
            for _ in 0..<(-power) { multiply(by: 5) }
            exponent = power
        }
        let text = (double < 0 ? "-" : "") + String(decoding: digits.map { $0 + 0x30 }, as: UTF8.self) + "e\(exponent)"
        return DecimalText(Substring(text))!
    }

    /// Compares the values exactly: negative, zero or positive.
    func compare(_ other: DecimalText) -> Int {
        let mySign = isZero ? 0 : (negative ? -1 : 1)
        let otherSign = other.isZero ? 0 : (other.negative ? -1 : 1)
        if mySign != otherSign { return mySign < otherSign ? -1 : 1 }
        if mySign == 0 { return 0 }
        // The place of the leading digit decides first, then the digits from there.
        let myMagnitude = digits.count + exponent
        let otherMagnitude = other.digits.count + other.exponent
        var order = 0
        if myMagnitude != otherMagnitude {
            order = myMagnitude < otherMagnitude ? -1 : 1
        } else {
            for index in 0..<max(digits.count, other.digits.count) {
                let mine = index < digits.count ? digits[index] : 0
                let theirs = index < other.digits.count ? other.digits[index] : 0
                if mine != theirs {
                    order = mine < theirs ? -1 : 1
                    break
                }
            }
        }
        return negative ? -order : order
    }

    /// True when the value has no fraction.
    var isWhole: Bool { exponent >= 0 }

    /// The value as a 64-bit integer; nil when it has a fraction or lies beyond 64 bits.
    var integer: Int64? {
        guard isWhole else { return nil }
        guard digits.count + exponent <= 19 else { return nil }
        var magnitude: UInt64 = 0
        for digit in digits + Array(repeating: 0, count: exponent) {
            let (times, overflowTimes) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, overflowSum) = times.addingReportingOverflow(UInt64(digit))
            guard !overflowTimes, !overflowSum else { return nil }
            magnitude = sum
        }
        if negative { return magnitude <= UInt64(Int64.max) + 1 ? Int64(truncatingIfNeeded: 0 &- magnitude) : nil }
        return magnitude <= UInt64(Int64.max) ? Int64(magnitude) : nil
    }

    /// The nearest double, or why there is none: beyond the largest double, or so small that
    /// it would become 0 though it is not 0.
    var double: Result<Double, Affinity.NumberRefusal> {
        let text = (negative ? "-" : "") + (digits.isEmpty ? "0" : String(decoding: digits.map { $0 + 0x30 }, as: UTF8.self)) + "e\(exponent)"
        guard let value = Double(text), value.isFinite else { return .failure(.tooLarge) }
        if value == 0, !isZero { return .failure(.tooSmall) }
        return .success(value)
    }

    /// True when `double` is exactly this number: reading back its shortest decimal form
    /// gives the same digits (so `0.1` qualifies, and `0.1000000000000000000001` does not).
    func isHeldExactly(by double: Double) -> Bool {
        guard let back = DecimalText(Substring(double.description)) else { return false }
        return back.digits == digits && back.exponent == exponent && (isZero || back.negative == negative)
    }
}
