import Foundation
import GRDB
import GRDBSQLite

/// Writes a table's rows (filtered and sorted as a list shows them) as CSV, TSV, JSON Lines
/// or a JSON array, streaming: one row at a time from one read transaction, through a small
/// buffer, so memory does not grow with the table.
///
/// What comes out goes back in with ``Importer`` exactly: in CSV every text value is quoted
/// and numbers are not (so a column without affinity keeps its types), NULL is an empty
/// unquoted field, and a blob is `\x` and its bytes in hex; in JSON, blobs are base64 and
/// numbers keep their kind (a real always has a fraction or an exponent).
public struct Exporter {
    public enum Format: String, Sendable, CaseIterable {
        case csv, tsv, jsonl, json
    }

    let core: StoreCore
    let table: String
    let filter: String
    let sort: [ColumnSort]
    let format: Format
    /// What NULL is written as in CSV and TSV (nothing by default).
    let null: String
    /// When not empty, only the records these marks mark (within the filter).
    let marks: MarkSet

    public init(container: Container, table: String, filter: String = "", sort: [ColumnSort] = [], marks: MarkSet = MarkSet(),
                format: Format, null: String = "") {
        self.marks = marks
        core = container.core
        self.table = table
        self.filter = filter
        self.sort = sort
        self.format = format
        self.null = null
    }

    /// Writes every matching row through `write` (called with chunks of bytes) and returns
    /// how many rows were written.
    ///
    /// After each chunk, `progress` hears the rows written so far and `isCancelled` is asked
    /// whether to stop; a cancelled export returns early, its output cut after a whole row
    /// (a JSON array is left unclosed), so the caller should discard it.
    /// - Throws: ``StoreError`` for an unknown table, column or filter, or a database error.
    public func run(
        progress: (Int) -> Void = { _ in }, isCancelled: () -> Bool = { false }, _ write: ([UInt8]) throws -> Void
    ) throws(StoreError) -> Int {
        let entity = try core.entity(table)
        let columns = entity.table.columns.filter { !$0.isHidden }
        let searchable = columns.map(\.name)
        var predicate = try FilterParser.parse(filter, table: entity.table, searchColumns: searchable)
        if !marks.isEmpty {
            let marked = try marks.predicate(for: entity.table)
            predicate = predicate.map { .and([$0, marked]) } ?? marked
        }
        let query = try OrderedQuery(entity: entity, sort: sort, filter: predicate)
        let clause = query.whereClause([])
        let names = columns.map(\.name)
        if let engine = core.engine {
            let dialect = entity.table.dialect
            let texts = columns.compactMap(dialect.exportText)
            if format == .csv || format == .tsv, texts.count == columns.count {
                let select = texts.enumerated().map { "\($0.element.expression) AS \("__cf_export_\($0.offset)".quotedIdentifier)" }
                let rowsSQL = "SELECT \(select.joined(separator: ", ")) FROM \(entity.table.fromSQL)\(clause.sql) ORDER BY \(query.orderBy())"
                var header = Self.header(names, delimiter: format == .tsv ? 0x09 : 0x2C)
                var rows = 0
                let outcome = try storeErrors(path: core.path) {
                    try engine.bulkExport(select: rowsSQL, arguments: clause.arguments, quoted: texts.map { !$0.bare },
                                          delimiter: format == .tsv ? 0x09 : 0x2C, null: null, isCancelled: isCancelled) { bytes, count in
                        if !header.isEmpty {
                            try write(header)
                            header = []
                        }
                        try write(bytes)
                        rows += count
                        progress(rows)
                    }
                }
                switch outcome {
                case .written(let count):
                    if !header.isEmpty { try storeErrors(path: core.path) { try write(header) } }
                    return count
                case .cancelled:
                    return rows
                case .unavailable:
                    break
                }
            }
            let select = columns.map(dialect.selectExpression).joined(separator: ", ")
            let sql = "SELECT \(select) FROM \(entity.table.fromSQL)\(clause.sql) ORDER BY \(query.orderBy())"
            return try storeErrors(path: core.path) {
                try engine.read { session in
                    try export(names: names, from: session, sql: sql, arguments: clause.arguments, progress: progress, isCancelled: isCancelled, write)
                }
            }
        }
        let select = names.map(\.quotedIdentifier).joined(separator: ", ")
        let sql = "SELECT \(select) FROM \(entity.table.fromSQL)\(clause.sql) ORDER BY \(query.orderBy())"
        return try storeErrors(path: core.path) {
            try core.read(for: entity) { db in
                var out: [UInt8] = []
                out.reserveCapacity(1 << 16)
                func flush(force: Bool = false) throws {
                    if force || out.count >= 1 << 16 {
                        try write(out)
                        out.removeAll(keepingCapacity: true)
                    }
                }
                let delimiter: UInt8 = format == .tsv ? 0x09 : 0x2C
                out += opening(names)
                var count = 0
                let statement = try db.makeStatement(sql: sql)
                let cursor = try Row.fetchCursor(statement, arguments: clause.arguments.statementArguments)
                let handle = statement.sqliteStatement
                let nullBytes = Array(null.utf8)
                while let row = try cursor.next() {
                    switch format {
                    case .csv, .tsv:
                        // Straight from SQLite's row into the output, no value in between
                        // (this loop was half as fast as `sqlite3 -csv` through `Value`).
                        for index in names.indices {
                            if index > 0 { out.append(delimiter) }
                            Self.appendCSVColumn(handle, Int32(index), null: nullBytes, to: &out)
                        }
                        out.append(0x0A)
                    case .jsonl, .json:
                        appendJSONRecord(names, first: count == 0, to: &out) { Value(row[$0] as DatabaseValue) }
                    }
                    count += 1
                    if out.count >= 1 << 16 {
                        try flush()
                        progress(count)
                        if isCancelled() { return count }
                    }
                }
                out += closing(count: count)
                try flush(force: true)
                return count
            }
        }
    }

    /// The export on another engine: each row `sql` reads on `session` (as values) written in
    /// the format, in chunks. Returns the rows written (fewer when cancelled).
    private func export(
        names: [String], from session: any EngineSession, sql: String, arguments: [Value],
        progress: (Int) -> Void, isCancelled: () -> Bool, _ write: ([UInt8]) throws -> Void
    ) throws -> Int {
        struct Stop: Error {}
        var out: [UInt8] = []
        out.reserveCapacity(1 << 16)
        let delimiter: UInt8 = format == .tsv ? 0x09 : 0x2C
        out += opening(names)
        var count = 0
        do {
            try session.forEachRow(sql, arguments, cancellation: nil) { values in
                switch format {
                case .csv, .tsv:
                    for (index, value) in values.enumerated() {
                        if index > 0 { out.append(delimiter) }
                        Self.appendCSV(value, null: null, to: &out)
                    }
                    out.append(0x0A)
                case .jsonl, .json:
                    appendJSONRecord(names, first: count == 0, to: &out) { values[$0] }
                }
                count += 1
                if out.count >= 1 << 16 {
                    try write(out)
                    out.removeAll(keepingCapacity: true)
                    progress(count)
                    if isCancelled() { throw Stop() }
                }
            }
        } catch is Stop {
            return count
        }
        out += closing(count: count)
        try write(out)
        return count
    }

    /// What comes before the rows: the header of CSV or TSV, a JSON array's bracket.
    private func opening(_ names: [String]) -> [UInt8] {
        switch format {
        case .csv, .tsv: return Self.header(names, delimiter: format == .tsv ? 0x09 : 0x2C)
        case .json: return Array("[".utf8)
        case .jsonl: return []
        }
    }

    /// What comes after `count` rows: a JSON array's bracket.
    private func closing(count: Int) -> [UInt8] {
        format == .json ? Array((count == 0 ? "]\n" : "\n]\n").utf8) : []
    }

    /// One row as a JSON object (a line of JSON Lines, or an element of the array after
    /// `first`), its values by column position from `value`.
    private func appendJSONRecord(_ names: [String], first: Bool, to out: inout [UInt8], _ value: (Int) -> Value) {
        if format == .json { out += Array((first ? "\n" : ",\n").utf8) }
        out.append(UInt8(ascii: "{"))
        for (index, name) in names.enumerated() {
            if index > 0 { out += Array(", ".utf8) }
            Self.appendJSONString(name, to: &out)
            out += Array(": ".utf8)
            Self.appendJSON(value(index), to: &out)
        }
        out.append(UInt8(ascii: "}"))
        if format == .jsonl { out.append(0x0A) }
    }

    /// The header line of CSV or TSV: each name quoted.
    static func header(_ names: [String], delimiter: UInt8) -> [UInt8] {
        var out: [UInt8] = []
        for (index, name) in names.enumerated() {
            if index > 0 { out.append(delimiter) }
            appendQuoted(name, to: &out)
        }
        out.append(0x0A)
        return out
    }

    /// Column `index` of the current row of `statement`, as ``appendCSV(_:null:to:)``
    /// writes it.
    static func appendCSVColumn(_ statement: SQLiteStatement, _ index: Int32, null: [UInt8], to out: inout [UInt8]) {
        switch sqlite3_column_type(statement, index) {
        case SQLITE_NULL:
            out += null
        case SQLITE_INTEGER:
            appendDecimal(sqlite3_column_int64(statement, index), to: &out)
        case SQLITE_FLOAT:
            out += realText(sqlite3_column_double(statement, index)).utf8
        case SQLITE_TEXT:
            let count = Int(sqlite3_column_bytes(statement, index))
            guard count > 0, let text = sqlite3_column_text(statement, index) else {
                out += [0x22, 0x22]
                return
            }
            let bytes = UnsafeBufferPointer(start: text, count: count)
            out.append(0x22)
            if memchr(text, 0x22, count) == nil {
                out.append(contentsOf: bytes)
            } else {
                for byte in bytes {
                    if byte == 0x22 { out.append(0x22) }
                    out.append(byte)
                }
            }
            out.append(0x22)
        default:   // SQLITE_BLOB
            let count = Int(sqlite3_column_bytes(statement, index))
            appendHex(UnsafeRawBufferPointer(start: sqlite3_column_blob(statement, index), count: count), to: &out)
        }
    }

    /// `\x` and the bytes in lower-case hex (what the importer reads back as a blob).
    static func appendHex(_ bytes: some Collection<UInt8>, to out: inout [UInt8]) {
        let digits = Array("0123456789abcdef".utf8)
        out += [UInt8(ascii: "\\"), UInt8(ascii: "x")]
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
    }

    /// An integer's decimal digits, without making a string.
    static func appendDecimal(_ value: Int64, to out: inout [UInt8]) {
        if value < 0 { out.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            repeat {
                buffer[19 - count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            } while magnitude > 0
            out.append(contentsOf: buffer[(20 - count)...])
        }
    }

    static func appendQuoted(_ text: String, to out: inout [UInt8]) {
        out.append(0x22)
        for byte in text.utf8 {
            if byte == 0x22 { out.append(0x22) }
            out.append(byte)
        }
        out.append(0x22)
    }

    static func appendCSV(_ value: Value, null: String, to out: inout [UInt8]) {
        switch value {
        case .null: out += Array(null.utf8)
        case .integer(let int): out += Array(String(int).utf8)
        case .real(let double): out += Array(realText(double).utf8)
        case .text(let text): appendQuoted(text, to: &out)
        case .blob(let data):
            appendHex(data, to: &out)
        // A number as the server wrote it, so it reads back exactly; NaN and the infinities
        // are words (quoted, as text is).
        case .decimal(let text):
            if DecimalText(Substring(text)) != nil { out += Array(text.utf8) } else { appendQuoted(text, to: &out) }
        case .boolean(let flag): out += Array((flag ? "true" : "false").utf8)
        }
    }

    /// A real as text that reads back as the same real, never as an integer.
    static func realText(_ double: Double) -> String {
        let text = double.description
        // (Byte by byte: `String.contains` goes through Foundation here, a third of the
        // export's time.)
        for byte in text.utf8 where byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "n") || byte == UInt8(ascii: "i") {
            return text
        }
        return text + ".0"
    }

    static func appendJSON(_ value: Value, to out: inout [UInt8]) {
        switch value {
        case .null: out += Array("null".utf8)
        case .integer(let int): out += Array(String(int).utf8)
        // JSON has no NaN nor infinity: they go as PostgreSQL spells them, in quotes, which a
        // float column reads back (null would lose them without a word).
        case .real(let double):
            if double.isFinite {
                out += Array(realText(double).utf8)
            } else {
                appendJSONString(double.isNaN ? "NaN" : double > 0 ? "Infinity" : "-Infinity", to: &out)
            }
        case .text(let text): appendJSONString(text, to: &out)
        case .blob(let data): appendJSONString(data.base64EncodedString(), to: &out)
        // JSON numbers have no limit of digits, so a decimal goes out exactly as written (when
        // written as JSON writes numbers; `.5` or `+1` go as text).
        case .decimal(let text):
            if isJSONNumber(text) { out += Array(text.utf8) } else { appendJSONString(text, to: &out) }
        case .boolean(let flag): out += Array((flag ? "true" : "false").utf8)
        }
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`: a number as JSON writes it.
    static func isJSONNumber(_ text: String) -> Bool {
        var bytes = text.utf8[...]
        func digits() -> Int {
            let count = bytes.prefix { $0 >= 0x30 && $0 <= 0x39 }.count
            bytes = bytes.dropFirst(count)
            return count
        }
        if bytes.first == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
        if bytes.first == UInt8(ascii: "0") {
            bytes = bytes.dropFirst()
        } else if digits() == 0 {
            return false
        }
        if bytes.first == UInt8(ascii: ".") {
            bytes = bytes.dropFirst()
            if digits() == 0 { return false }
        }
        if let marker = bytes.first, marker == UInt8(ascii: "e") || marker == UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            if let sign = bytes.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
            if digits() == 0 { return false }
        }
        return bytes.isEmpty
    }

    static func appendJSONString(_ text: String, to out: inout [UInt8]) {
        out.append(0x22)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += Array("\\\"".utf8)
            case "\\": out += Array("\\\\".utf8)
            case "\n": out += Array("\\n".utf8)
            case "\r": out += Array("\\r".utf8)
            case "\t": out += Array("\\t".utf8)
            // Foundation's reader drops a raw U+FEFF at the start of a string; escaped, it stays.
            case "\u{FEFF}": out += Array("\\ufeff".utf8)
            default:
                if scalar.value < 0x20 {
                    out += Array(String(format: "\\u%04x", scalar.value).utf8)
                } else {
                    out += Array(String(scalar).utf8)
                }
            }
        }
        out.append(0x22)
    }
}
