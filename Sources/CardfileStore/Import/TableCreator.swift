import Foundation
import GRDB

/// Makes the table an import names when it is missing (`--create`), with each column's type
/// inferred from every value the file holds for it.
///
/// The whole file is read once for this (the import then reads it again), because a type
/// guessed from the first rows would make a later row that does not fit a rejected row:
/// - a column whose values are all whole numbers is INTEGER; numbers with a fraction or an
///   exponent make it REAL; `\x…` hex fields (what an export writes for blobs) make it BLOB;
/// - anything else, a quoted field (an export quotes every text value), a number with a
///   leading zero or a plus sign (a code, not a quantity), a number a REAL would round, or
///   no value at all make it TEXT;
/// - the table has no declared key: rows get SQLite's rowid.
public enum TableCreator {
    /// What was made: the statement run, and the columns with their types.
    public struct Created: Hashable, Sendable {
        public let sql: String
        public let columns: [Column]

        public struct Column: Hashable, Sendable {
            public var name: String
            public let type: String
            /// The type on PostgreSQL: `bigint`, `numeric`, `bytea`, `date` (ISO dates, which
            /// SQLite keeps as TEXT), `text`. Numbers with a fraction are `numeric`, exact
            /// to the last digit written (`19.90` stays `19.90`; a `double precision` shows `19.9`).
            public var postgresType: String = "text"
            /// True when some row left the field empty (or without a value).
            public var hasEmptyValues = false
            /// The name the file gives it (a header's, a JSON key as first met), when that is
            /// not ``name`` as it stands (blank, repeated, cut to the engine's length); nil for
            /// a key column the table adds.
            public var sourceName: String?
        }
    }

    /// Creates `options.table` in the database at `database` when the file has no such
    /// table, from what `file` holds. A missing database file is created too.
    /// - Returns: what was made, or nil when the table was already there.
    /// - Throws: ``ImportError`` when the file cannot be read or has no columns, or the
    ///   database cannot be opened or written.
    public static func createIfMissing(database: String, file: String, options: ImportOptions) throws(ImportError) -> Created? {
        guard let created = try plan(database: database, file: file, options: options) else { return nil }
        do {
            let queue = try DatabaseQueue(path: database)
            defer { try? queue.close() }
            try queue.write { try $0.execute(sql: created.sql) }
        } catch {
            throw .store(.cannotOpen(path: database, detail: String(describing: error)))
        }
        return created
    }

    /// What ``createIfMissing(database:file:options:)`` would make, without making it (nor
    /// the database file): an import then creates the table in its own transaction, so an
    /// `--atomic` import that fails or is killed leaves no empty table behind.
    /// - Returns: nil when the table is already there.
    public static func plan(database: String, file: String, options: ImportOptions) throws(ImportError) -> Created? {
        if FileManager.default.fileExists(atPath: database) {
            do {
                let queue = try DatabaseQueue(path: database, configuration: { var c = Configuration(); c.readonly = true; return c }())
                defer { try? queue.close() }
                // A view of that name is there too: the import then says it writes tables only.
                let exists = try queue.read { db in
                    try Bool.fetchOne(db, sql: "SELECT 1 FROM sqlite_schema WHERE type IN ('table', 'view') AND name = ? COLLATE NOCASE",
                                      arguments: [options.table]) ?? false
                }
                if exists { return nil }
            } catch {
                throw .store(.cannotOpen(path: database, detail: String(describing: error)))
            }
        }
        let columns = try inferColumns(file: file, options: options)
        let sql = "CREATE TABLE \(options.table.quotedIdentifier) ("
            + columns.map { "\($0.name.quotedIdentifier) \($0.type)" }.joined(separator: ", ") + ")"
        return Created(sql: sql, columns: columns)
    }

    /// What `--create` makes on an engine (PostgreSQL), from what `file` holds: the columns
    /// typed as ``Created/Column/postgresType`` says, and a primary key, without which the
    /// table could not be edited: the file's `id` column when all its values are whole
    /// numbers (a repeated one is then a refused row), else an identity column `id` added
    /// first (named `cardfile_id` when the file has a column `id` of other values). `table`
    /// is the table's name as the engine quotes it.
    public static func planOnEngine(file: String, options: ImportOptions, quotedTable: String, nameBytes: Int = 63) throws(ImportError) -> Created {
        var columns = try inferColumns(file: file, options: options)
        // Names cut to the engine's length (PostgreSQL keeps 63 bytes), then told apart again,
        // each with its `_N` within the length.
        let cut = columns.map { $0.name.cut(toBytes: nameBytes) }
        let names = CardfileStore.uniqueNames(cut, blank: { "column_\($0)" }, repeated: { "\($0.cut(toBytes: nameBytes - "_\($1)".utf8.count))_\($1)" })
        for index in columns.indices { columns[index].name = names[index] }
        var key: String?
        if let id = columns.first(where: { $0.name.lowercased() == "id" }), id.postgresType == "bigint", !id.hasEmptyValues {
            key = id.name
        } else {
            // (A name no column of the file has.)
            let taken = Set(columns.map(\.name))
            let name = CardfileStore.uniqueNames([taken.contains { $0.lowercased() == "id" } ? "cardfile_id" : "id"], taken: taken,
                                                 blank: { _ in "id" }, repeated: { "\($0)_\($1)" })[0]
            columns.insert(Created.Column(name: name, type: "INTEGER", postgresType: "bigint GENERATED BY DEFAULT AS IDENTITY"), at: 0)
            key = name
        }
        let parts = columns.map { "\($0.name.quotedIdentifier) \($0.postgresType)" } + (key.map { ["PRIMARY KEY (\($0.quotedIdentifier))"] } ?? [])
        return Created(sql: "CREATE TABLE \(quotedTable) (" + parts.joined(separator: ", ") + ")", columns: columns)
    }

    /// The table `created` describes, as SQLite reads its statement back (made in a
    /// database in memory).
    static func schema(of created: Created, table: String) throws -> TableSchema {
        let queue = try DatabaseQueue()
        return try queue.write { db in
            try db.execute(sql: created.sql)
            guard let schema = try SchemaReader.read(db).table(named: table) else { throw StoreError.noSuchTable(table) }
            return schema
        }
    }

    /// The columns `file` describes, with their inferred types, in the file's order.
    static func inferColumns(file: String, options: ImportOptions) throws(ImportError) -> [Created.Column] {
        let (handle, opened, _) = try Importer.open(file, options: options)
        defer { try? handle.close() }
        var reader = opened
        var names: [String] = []
        var guesses: [Guess] = []
        var positions: [String: Int] = [:]   // lowercased name → column (JSON keys)
        var first = true
        while true {
            let outcome: RecordSource.Outcome?
            do { outcome = try reader.next() } catch { throw .cannotRead(path: file, reason: error.localizedDescription) }
            guard let outcome else { break }
            switch outcome {
            case .fields(let fields, _):
                if first {
                    first = false
                    if options.header {
                        names = fields.map { $0.text.trimmingCharacters(in: .whitespaces) }
                        guesses = Array(repeating: Guess(), count: names.count)
                        continue
                    }
                }
                while guesses.count < fields.count {
                    guesses.append(Guess())
                    names.append("")
                }
                for (index, field) in fields.enumerated() { guesses[index].see(field, emptyAsText: options.emptyAsText) }
            case .object(let pairs, _):
                first = false
                for (key, value) in pairs {
                    let position: Int
                    if let known = positions[key.lowercased()] {
                        position = known
                    } else {
                        position = names.count
                        positions[key.lowercased()] = position
                        names.append(key)
                        guesses.append(Guess())
                    }
                    guesses[position].see(value)
                }
            case .problem, .record:
                continue   // the import reports problems; `.record` comes only from next(reusing:)
            }
        }
        guard !names.isEmpty else { throw .noHeader(file: PathText.name(of: file)) }
        return zip(zip(uniqueNames(names), names), guesses).map {
            Created.Column(name: $0.0, type: $1.type, postgresType: $1.postgresType, hasEmptyValues: $1.sawEmpty, sourceName: $0.1)
        }
    }

    /// Names as columns can have them: blank ones become `column_N`, repeated ones (in any
    /// case) get `_2`, `_3`…
    static func uniqueNames(_ names: [String]) -> [String] {
        CardfileStore.uniqueNames(names, blank: { "column_\($0)" }, repeated: { "\($0)_\($1)" })
    }

    /// What one column's values have been so far.
    struct Guess {
        private var integers = false
        private var reals = false
        private var blobs = false
        private var texts = false

        /// Every value an ISO date (`2024-02-29`): a `date` on PostgreSQL, text on SQLite.
        private var dates = false

        var type: String {
            if texts || dates || !(integers || reals || blobs) { return "TEXT" }
            if blobs { return "BLOB" }
            return reals ? "REAL" : "INTEGER"
        }

        var postgresType: String {
            if dates, !(texts || integers || reals || blobs) { return "date" }
            switch type {
            case "INTEGER": return "bigint"
            case "REAL": return "numeric"
            case "BLOB": return "bytea"
            default: return "text"
            }
        }

        /// Some row had no value here.
        private(set) var sawEmpty = false

        mutating func see(_ field: CSVField, emptyAsText: Bool) {
            let text = field.text
            if text.isEmpty, !field.quoted {
                sawEmpty = true
                if emptyAsText { texts = true }
                return
            }
            if field.quoted { return texts = true }
            if ColumnMapping.blob(fromHex: text) != nil { return blobs = true }
            if Self.isPlainInteger(text) { return integers = true }
            if Self.isPlainReal(text) { return reals = true }
            if Self.isISODate(text) { return dates = true }
            texts = true
        }

        /// `2024-02-29`: a day that exists, in the years PostgreSQL's `date` and people's
        /// records share (1–9999).
        static func isISODate(_ text: String) -> Bool {
            let parts = text.split(separator: "-", omittingEmptySubsequences: false)
            guard text.utf8.count == 10, parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
                  let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]), year >= 1, (1...12).contains(month), day >= 1 else { return false }
            let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
            let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
            return day <= days
        }

        mutating func see(_ value: Value) {
            switch value {
            case .null: sawEmpty = true
            case .integer: integers = true
            case .real: reals = true
            case .text(let text): if Self.isISODate(text) { dates = true } else { texts = true }
            case .blob: blobs = true
            // (From another engine: a decimal is an INTEGER or a REAL where one holds it
            // exactly, else text; a boolean is 0 or 1.)
            case .decimal(let text):
                if let number = DecimalText(Substring(text)), number.integer != nil {
                    integers = true
                } else if case .real = Affinity.numeric.coerce(text), Self.isPlainReal(text) {
                    reals = true
                } else {
                    texts = true
                }
            case .boolean: integers = true
            }
        }

        /// `-12`, `0`, `345`: no sign other than a minus, no leading zero, in Int64's range.
        static func isPlainInteger(_ text: String) -> Bool {
            let digits = text.hasPrefix("-") ? text.dropFirst() : Substring(text)
            guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return false }
            guard digits.count == 1 || digits.first != "0" else { return false }
            return Int64(text) != nil
        }

        /// `-1.5`, `0.25`, `3e8`: a number a REAL holds exactly (see
        /// ``Affinity/exactNumber(_:)``) whose whole part has no leading zero.
        static func isPlainReal(_ text: String) -> Bool {
            guard case .real? = Affinity.exactNumber(text) else { return false }
            guard text.allSatisfy({ $0.isASCII && ($0.isNumber || "-.eE+".contains($0)) }), !text.hasPrefix("+") else { return false }
            let whole = (text.hasPrefix("-") ? text.dropFirst() : Substring(text)).prefix { $0.isNumber }
            return whole.count <= 1 || whole.first != "0"
        }
    }
}
