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

    /// Each column's affinity, by column index (read per field: no copy of the column's
    /// description).
    let affinities: [Affinity]
    /// The engine reads each value's text by its column's type (``SQLDialect/typesTextByColumn``):
    /// fields go as the file has them, and the database refuses what its column cannot take.
    let textByColumn: Bool
    /// A JSON key (lower case) to the column it goes to, where a table the import made named
    /// that column otherwise (a key cut to the server's 63 bytes, a blank or repeated one).
    var renamed: [String: String] = [:]

    init(csv: [Int?]?, table: TableSchema) {
        self.csv = csv
        self.table = table
        mappedColumns = csv?.compactMap { $0 } ?? []
        affinities = table.columns.map(\.affinity)
        textByColumn = table.dialect.typesTextByColumn
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
            if textByColumn {
                values.append(!field.quoted && field.text.isEmpty ? (emptyAsText ? .text("") : .null) : .text(field.text))
                continue
            }
            switch Self.value(of: field, for: table.columns[target], emptyAsText: emptyAsText) {
            case .success(let value): values.append(value)
            case .failure(let problem): return .failure(problem)
            }
        }
        // Every row shares one columns array (no copy per row).
        return .success(Row(columns: mappedColumns, values: values))
    }

    /// The same as ``row(from:entity:emptyAsText:)`` for a record still in its reader's
    /// buffer: numbers are read from the bytes, and only text becomes a string.
    func row(from record: CSVRecord, emptyAsText: Bool) -> Result<Row, Problem> {
        guard let csv else { return .failure(Problem(column: nil, reason: "not a delimited file")) }
        guard record.count == csv.count else {
            return .failure(Problem(column: nil, reason: "it has \(record.count) field\(record.count == 1 ? "" : "s"), the header has \(csv.count)"))
        }
        var values: [Value] = []
        values.reserveCapacity(mappedColumns.count)
        for (field, target) in csv.enumerated() {
            guard let target else { continue }
            let affinity = affinities[target]
            let range = record.range(of: field)
            if range.isEmpty, !record.quoted[field] {
                values.append(emptyAsText ? .text("") : .null)
                continue
            }
            if textByColumn {
                values.append(.text(record.text(of: field)))
                continue
            }
            switch affinity {
            case .integer, .real, .numeric:
                if let int = Self.plainInteger(record.bytes, range) {
                    values.append(affinity == .real ? .real(Double(int)) : .integer(int))
                    continue
                }
                let text = record.text(of: field)
                switch affinity.number(from: text) {
                case .success(let number): values.append(number)
                case .failure(let refusal): return .failure(Self.refused(text, refusal, table.columns[target]))
                }
            case .text:
                values.append(.text(record.text(of: field)))
            case .blob:
                switch Self.value(of: CSVField(record.text(of: field), quoted: record.quoted[field]), for: table.columns[target], emptyAsText: emptyAsText) {
                case .success(let value): values.append(value)
                case .failure(let problem): return .failure(problem)
                }
            }
        }
        return .success(Row(columns: mappedColumns, values: values))
    }

    /// The same row as ``row(from:emptyAsText:)`` in COPY's text format (``CopyTextRow``),
    /// appended to `rows`, for an engine that reads every field by its column's type
    /// (``textByColumn``): the field's bytes, escaped. (A NULL in a NOT NULL column is the
    /// writer's to refuse, as for values: in file order with the rows the database refuses.)
    func copyText(from record: CSVRecord, emptyAsText: Bool, to rows: inout [UInt8]) -> Problem? {
        guard let csv else { return Problem(column: nil, reason: "not a delimited file") }
        guard record.count == csv.count else {
            return Problem(column: nil, reason: "it has \(record.count) field\(record.count == 1 ? "" : "s"), the header has \(csv.count)")
        }
        var first = true
        record.bytes.withUnsafeBufferPointer { bytes in
            for (field, target) in csv.enumerated() where target != nil {
                if !first { rows.append(0x09) }
                first = false
                let range = record.range(of: field)
                if range.isEmpty, !record.quoted[field] {
                    if !emptyAsText { CopyTextRow.appendNull(to: &rows) }
                    continue
                }
                CopyTextRow.appendField(UnsafeBufferPointer(rebasing: bytes[range]), to: &rows)
            }
        }
        rows.append(0x0A)
        return nil
    }

    /// `-123` or `45` (at most 18 digits, nothing else) as a number; nil for anything else,
    /// which then takes the general path.
    static func plainInteger(_ bytes: [UInt8], _ range: Range<Int>) -> Int64? {
        var index = range.lowerBound
        let negative = index < range.upperBound && bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        let digits = range.upperBound - index
        guard digits > 0, digits <= 18 else { return nil }
        var value: Int64 = 0
        while index < range.upperBound {
            let digit = bytes[index] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            value = value * 10 + Int64(digit)
            index += 1
        }
        return negative ? -value : value
    }

    func row(from pairs: [(key: String, value: Value)], entity: Entity, ignoreUnknown: Bool) -> Result<Row, Problem> {
        var columns: [Int] = []
        var values: [Value] = []
        for (key, value) in pairs {
            guard let index = table.columnIndex(named: renamed[key.lowercased()] ?? key), table.columns[index].isWritable else {
                if ignoreUnknown { continue }
                let why = table.columnIndex(named: key) == nil ? "\(table.name) has no column “\(key)”" : "\(table.name) fills “\(key)” itself"
                return .failure(Problem(column: key, reason: why + " (--ignore-unknown leaves such keys out)"))
            }
            let column = table.columns[index]
            var coerced = value
            if textByColumn {
                // The server reads the text; only bytes (base64, as an export writes them) are
                // the store's to decode.
                if case .text(let text) = value, column.affinity == .blob, let bytes = Data(base64Encoded: text) { coerced = .blob(bytes) }
            } else if case .text(let text) = value, [.integer, .real, .numeric].contains(column.affinity) {
                switch column.affinity.number(from: text) {
                case .success(let number): coerced = number
                case .failure(let refusal): return .failure(Self.refused(text, refusal, column))
                }
            } else if case .text(let text) = value, column.declaredType.uppercased().contains("BLOB"), let bytes = Data(base64Encoded: text) {
                // A column declared BLOB takes base64 back as bytes (what an export writes);
                // in a column without a type, text stays text.
                coerced = .blob(bytes)
            } else if !column.affinity.accepts(value) {
                return .failure(Self.refused(value.description, .notWhole, column))
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
            return column.affinity.number(from: field.text).mapError { refused(field.text, $0, column) }
        case .text:
            return .success(.text(field.text))
        case .blob:
            if field.quoted { return .success(.text(field.text)) }
            if let blob = blob(fromHex: field.text) { return .success(.blob(blob)) }
            // Only a number kept exactly becomes one; anything else (`0x10`, 30 digits) stays text.
            return .success(Affinity.exactNumber(field.text) ?? .text(field.text))
        }
    }

    /// Why a column refused a value, in a person's words.
    static func refused(_ text: String, _ refusal: Affinity.NumberRefusal, _ column: ColumnDescription) -> Problem {
        let shown = text.count > 40 ? text.prefix(39) + "…" : text
        return Problem(column: column.name, reason: "“\(shown)” \(refusal.words(for: column.affinity))")
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
