import NIOCore

/// `numeric`'s binary form as the exact text PostgreSQL prints for it (`-12.50`, `NaN`).
///
/// The form: digit count, weight (the power of 10,000 of the first digit), sign, display
/// scale, then the digits in base 10,000. The text has every integer digit, and exactly
/// `scale` digits after the point, as `numeric_out` writes them.
enum NumericText {
    static func text(_ buffer: ByteBuffer) -> String? {
        var buffer = buffer
        guard let count = buffer.readInteger(as: Int16.self), let weight = buffer.readInteger(as: Int16.self),
              let sign = buffer.readInteger(as: UInt16.self), let scale = buffer.readInteger(as: Int16.self),
              count >= 0, scale >= 0
        else { return nil }
        switch sign {
        case 0xC000: return "NaN"
        case 0xD000: return "Infinity"
        case 0xF000: return "-Infinity"
        case 0x0000, 0x4000: break
        default: return nil
        }
        var digits: [Int16] = []
        for _ in 0..<count {
            guard let digit = buffer.readInteger(as: Int16.self), (0..<10_000).contains(digit) else { return nil }
            digits.append(digit)
        }
        // Base-10,000 digit at position p (weight - index) is worth 10,000^p.
        func digit(at power: Int) -> Int16 {
            let index = Int(weight) - power
            return digits.indices.contains(index) ? digits[index] : 0
        }
        var integer = ""
        if weight >= 0 {
            for power in stride(from: Int(weight), through: 0, by: -1) {
                let group = String(digit(at: power))
                integer += integer.isEmpty ? group : String(repeating: "0", count: 4 - group.count) + group
            }
            // Leading zero groups print as nothing: keep at least one digit.
            while integer.count > 1, integer.first == "0" { integer.removeFirst() }
        }
        if integer.isEmpty { integer = "0" }
        var fraction = ""
        var power = -1
        while fraction.count < Int(scale) {
            let group = String(digit(at: power))
            fraction += String(repeating: "0", count: 4 - group.count) + group
            power -= 1
        }
        fraction = String(fraction.prefix(Int(scale)))
        let negative = sign == 0x4000 && (integer != "0" || fraction.contains { $0 != "0" })
        return (negative ? "-" : "") + integer + (scale > 0 ? "." + fraction : "")
    }
}
