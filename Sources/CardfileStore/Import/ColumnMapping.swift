import Foundation

/// From a file's fields (or a JSON object's keys) to a table's columns, with each value
/// coerced by its column's affinity.
struct ColumnMapping {
    /// For delimited files: the column each field position goes to (nil: left out). nil for
    /// JSON, whose objects name their columns.
    let csv: [Int?]?
    let table: TableSchema
    /// The columns the fields go to, in order (the mapped ones of ``csv``).
    let mappedColumns: [Int]

    init(csv: [Int?]?, table: TableSchema) {
        self.csv = csv
        self.table = table
        mappedColumns = csv?.compactMap { $0 } ?? []
    }

    struct Problem: Error {
        let column: String?
        let reason: String
    }

    struct Row {
        let columns: [Int]
        let values: [Value]
    }

    func row(from fields: [CSVField], entity: Entity, emptyAsText: Bool) -> Result<Row, Problem> {
        guard let csv else { return .failure(Problem(column: nil, reason: "not a delimited file")) }
        guard fields.count == csv.count else {
            return .failure(Problem(column: nil, reason: "it has \(fields.count) field\(fields.count == 1 ? "" : "s"), the header has \(csv.count)"))
        }
        var values: [Value] = []
        values.reserveCapacity(fields.count)
        for (field, target) in zip(fields, csv) {
            guard let target else { continue }
            switch Self.value(of: field, for: table.columns[target], emptyAsText: emptyAsText) {
            case .success(let value): values.append(value)
            case .failure(let problem): return .failure(problem)
            }
        }
        // Every row shares one columns array (no copy per row).
        return .success(Row(columns: mappedColumns, values: values))
    }

    func row(from pairs: [(key: String, value: Value)], entity: Entity, ignoreUnknown: Bool) -> Result<Row, Problem> {
        var columns: [Int] = []
        var values: [Value] = []
        for (key, value) in pairs {
            guard let index = table.columnIndex(named: key), table.columns[index].isWritable else {
                if ignoreUnknown { continue }
                return .failure(Problem(column: key, reason: "\(table.name) has no column “\(key)” (--ignore-unknown leaves such keys out)"))
            }
            let column = table.columns[index]
            var coerced = value
            if case .text(let text) = value, [.integer, .real, .numeric].contains(column.affinity) {
                guard let number = column.affinity.coerce(text) else { return .failure(Self.notANumber(text, column)) }
                coerced = number
            } else if !column.affinity.accepts(value) {
                return .failure(Self.notANumber(value.description, column))
            }
            columns.append(index)
            values.append(coerced)
        }
        return .success(Row(columns: columns, values: values))
    }

    /// A field as the value its column takes: empty and unquoted is NULL (or '' with
    /// `emptyAsText`); numbers for number columns (text that is not one is an error); in a
    /// column without affinity, a quoted field stays text, `\x…` is a blob, an unquoted number
    /// is a number (so an export comes back with its types).
    static func value(of field: CSVField, for column: ColumnDescription, emptyAsText: Bool) -> Result<Value, Problem> {
        if !field.quoted, field.text.isEmpty { return .success(emptyAsText ? .text("") : .null) }
        switch column.affinity {
        case .integer, .real, .numeric:
            guard let number = column.affinity.coerce(field.text) else { return .failure(notANumber(field.text, column)) }
            return .success(number)
        case .text:
            return .success(.text(field.text))
        case .blob:
            if field.quoted { return .success(.text(field.text)) }
            if let blob = blob(fromHex: field.text) { return .success(.blob(blob)) }
            return .success(Affinity.numeric.coerce(field.text) ?? .text(field.text))
        }
    }

    static func notANumber(_ text: String, _ column: ColumnDescription) -> Problem {
        let shown = text.count > 40 ? text.prefix(39) + "…" : text
        let wanted = column.affinity == .integer ? "a whole number" : "a number"
        return Problem(column: column.name, reason: "“\(shown)” is not \(wanted)")
    }

    /// `\x0aff…` as bytes; nil when the text is not that.
    static func blob(fromHex text: String) -> Data? {
        guard text.hasPrefix("\\x") else { return nil }
        let hex = Array(text.utf8.dropFirst(2))
        guard hex.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(hex.count / 2)
        func digit(_ byte: UInt8) -> UInt8? {
            switch byte {
            case 0x30...0x39: return byte - 0x30
            case 0x61...0x66: return byte - 0x61 + 10
            case 0x41...0x46: return byte - 0x41 + 10
            default: return nil
            }
        }
        var index = 0
        while index < hex.count {
            guard let high = digit(hex[index]), let low = digit(hex[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return Data(bytes)
    }
}
