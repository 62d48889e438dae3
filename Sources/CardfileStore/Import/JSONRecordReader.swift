import Foundation

/// Reads objects from JSON Lines (one object a line) or from a JSON array of objects, as a
/// stream: the array is split into its objects as bytes arrive, and only one object at a time
/// is parsed, so memory does not grow with the file.
struct JSONRecordReader {
    enum Layout { case lines, array }

    enum Outcome {
        case record([(key: String, value: Value)], line: Int)
        case problem(String, line: Int)
    }

    private var source: ByteSource
    let layout: Layout
    private var line = 1
    private var started = false
    private var finished = false

    /// The line the next record starts on.
    var currentLine: Int { line }
    /// Bytes of the file read so far.
    var bytesRead: Int { source.consumed }

    init(source: ByteSource, layout: Layout) {
        self.source = source
        self.layout = layout
    }

    mutating func next() throws -> Outcome? {
        switch layout {
        case .lines: return try nextLine()
        case .array: return try nextElement()
        }
    }

    private mutating func nextLine() throws -> Outcome? {
        while true {
            guard try source.peek() != nil else { return nil }
            let start = line
            source.beginRecord(line: start)
            var bytes: [UInt8] = []
            while let byte = try source.next() {
                if byte == 0x0A {
                    line += 1
                    break
                }
                bytes.append(byte)
            }
            if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
            return Self.object(from: bytes, line: start)
        }
    }

    private mutating func skipSpace() throws {
        while let byte = try source.peek(), byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A {
            if byte == 0x0A { line += 1 }
            _ = try source.next()
        }
    }

    private mutating func nextElement() throws -> Outcome? {
        guard !finished else { return nil }
        try skipSpace()
        if !started {
            started = true
            guard try source.next() == UInt8(ascii: "[") else {
                finished = true
                return .problem("the file is not a JSON array of objects (it must start with [)", line: line)
            }
            try skipSpace()
            if try source.peek() == UInt8(ascii: "]") {
                finished = true
                return nil
            }
        }
        let start = line
        guard try source.peek() == UInt8(ascii: "{") else {
            finished = true
            if try source.peek() == nil { return .problem("the array never ends (no closing ])", line: line) }
            return .problem("an element of the array is not an object", line: start)
        }
        // The object's bytes: up to its matching brace, strings and escapes respected.
        source.beginRecord(line: start)
        var bytes: [UInt8] = []
        var depth = 0
        var inString = false
        var escaped = false
        while let byte = try source.next() {
            bytes.append(byte)
            if byte == 0x0A { line += 1 }
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            if byte == UInt8(ascii: "\"") { inString = true } else if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") { depth += 1 } else if byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") {
                depth -= 1
                if depth == 0 { break }
            }
        }
        guard depth == 0 else {
            finished = true
            return .problem("the object that starts here never ends", line: start)
        }
        try skipSpace()
        switch try source.next() {
        case UInt8(ascii: ",")?: break
        case UInt8(ascii: "]")?: finished = true
        default:
            finished = true
            return .problem("expected , or ] after an object", line: line)
        }
        return Self.object(from: bytes, line: start)
    }

    /// One JSON object's fields as values: strings as text, numbers as integers or reals,
    /// booleans as 1 and 0, null as NULL, nested arrays and objects as their JSON text.
    static func object(from bytes: [UInt8], line: Int) -> Outcome {
        guard String(validating: bytes, as: UTF8.self) != nil else {
            return .problem("not valid UTF-8 text", line: line)
        }
        // Numbers are read from their own text, exactly: Foundation makes -2^63 a double,
        // wraps integers above 2^63, rounds 1e-400 to 0 and refuses 1e400. So each top-level
        // number is checked against JSON's grammar and handed to Foundation as `0`.
        let scan = scanTopLevel(bytes)
        var numbers: [String: Value] = [:]
        var parseable = bytes
        for (key, range) in scan.numbers.reversed() {
            let text = String(decoding: bytes[range], as: UTF8.self)
            guard let number = number(from: text) else {
                let shown = text.count > 40 ? text.prefix(39) + "…" : Substring(text)
                return .problem("not valid JSON (“\(shown)” is not a JSON number)", line: line)
            }
            if numbers[key] == nil { numbers[key] = number }
            parseable.replaceSubrange(range, with: [0x30])
        }
        let parsed: Any
        do {
            parsed = try JSONSerialization.jsonObject(with: Data(parseable), options: [.fragmentsAllowed])
        } catch {
            return .problem("not valid JSON", line: line)
        }
        guard let object = parsed as? [String: Any] else { return .problem("a JSON value that is not an object", line: line) }
        // In the file's order (Foundation's dictionary has none): a created table's columns
        // follow it.
        let order = Dictionary(scan.keys.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        let pairs = object.map { ($0.key, numbers[$0.key] ?? value(of: $0.value)) }.sorted {
            let (left, right) = (order[$0.0] ?? Int.max, order[$1.0] ?? Int.max)
            return left != right ? left < right : $0.0 < $1.0
        }
        return .record(pairs, line: line)
    }

    /// A JSON number's text as a value, never rounded: an integer when it is written as one
    /// and fits in 64 bits, a real when a double holds it exactly, else its text (which a
    /// number column then takes or refuses by its own rule, and an untyped column keeps).
    /// nil when the text is not a JSON number.
    static func number(from text: String) -> Value? {
        guard isJSONNumber(text.utf8) else { return nil }
        return Affinity.exactNumber(text) ?? .text(text)
    }

    /// JSON's number grammar: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
    static func isJSONNumber(_ bytes: String.UTF8View) -> Bool {
        var rest = bytes[...]
        func digits() -> Int {
            let count = rest.prefix { $0 >= 0x30 && $0 <= 0x39 }.count
            rest = rest.dropFirst(count)
            return count
        }
        if rest.first == UInt8(ascii: "-") { rest = rest.dropFirst() }
        let whole = rest.first == 0x30 ? 1 : 0
        if whole == 1 { rest = rest.dropFirst() } else if digits() == 0 { return false }
        if rest.first == UInt8(ascii: ".") {
            rest = rest.dropFirst()
            if digits() == 0 { return false }
        }
        if let marker = rest.first, marker == UInt8(ascii: "e") || marker == UInt8(ascii: "E") {
            rest = rest.dropFirst()
            if let sign = rest.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { rest = rest.dropFirst() }
            if digits() == 0 { return false }
        }
        return rest.isEmpty
    }

    /// The keys of the object `bytes` holds, in the order they are written (nested objects'
    /// keys left out), and where each number value is, in order.
    static func scanTopLevel(_ bytes: [UInt8]) -> (keys: [String], numbers: [(key: String, range: Range<Int>)]) {
        var keys: [String] = []
        var numbers: [(key: String, range: Range<Int>)] = []
        var depth = 0
        var index = 0
        var expectingKey = false
        var afterColon = false
        while index < bytes.count {
            let byte = bytes[index]
            if afterColon, depth == 1, byte == UInt8(ascii: "-") || (byte >= 0x30 && byte <= 0x39), let key = keys.last {
                var end = index
                while end < bytes.count, bytes[end] != UInt8(ascii: ","), bytes[end] != UInt8(ascii: "}"), bytes[end] > 0x20 { end += 1 }
                numbers.append((key, index..<end))
                afterColon = false
                index = end
                continue
            }
            if byte > 0x20 { afterColon = byte == UInt8(ascii: ":") && depth == 1 }
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                expectingKey = byte == UInt8(ascii: "{") && depth == 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
            case UInt8(ascii: ","):
                expectingKey = depth == 1
            case UInt8(ascii: "\""):
                // A string: find its end, past escapes.
                var end = index + 1
                while end < bytes.count, bytes[end] != UInt8(ascii: "\"") { end += bytes[end] == UInt8(ascii: "\\") ? 2 : 1 }
                if expectingKey, end < bytes.count,
                   let key = try? JSONSerialization.jsonObject(with: Data(bytes[index...end]), options: [.fragmentsAllowed]) as? String {
                    keys.append(key)
                }
                expectingKey = false
                index = end
            default:
                break
            }
            index += 1
        }
        return (keys, numbers)
    }

    static func value(of json: Any) -> Value {
        switch json {
        case is NSNull: return .null
        case let string as String: return .text(string)
        case let number as NSNumber:
            // Foundation tells booleans ("c"), integers and reals ("d", "f") by the number's type.
            switch String(cString: number.objCType) {
            case "c", "B": return .integer(number.boolValue ? 1 : 0)
            case "d", "f": return .real(number.doubleValue)
            default: return .integer(number.int64Value)
            }
        default:
            let data = (try? JSONSerialization.data(withJSONObject: json, options: [.sortedKeys])) ?? Data()
            return .text(String(decoding: data, as: UTF8.self))
        }
    }
}
