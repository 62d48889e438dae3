/// A value read as a number where an aggregate gave it: a count, a total, a mean.
extension Value {
    /// An integer, or a real or an exact number that is whole; nil for anything else.
    package var wholeNumber: Int? {
        switch self {
        case .integer(let number): return Int(exactly: number)
        case .real(let number): return number.isFinite ? Int(exactly: number) : nil
        case .decimal(let text), .text(let text): return Int(text)
        default: return nil
        }
    }

    /// A number as a double (an exact number rounded); nil for anything else.
    package var doubleValue: Double? {
        switch self {
        case .integer(let number): return Double(number)
        case .real(let number): return number
        case .decimal(let text): return Double(text)
        default: return nil
        }
    }
}
