import Foundation

/// The events of a ``DatabaseDiff`` as lines of text, of JSON, or of SQL that makes A into B.
public enum DiffText {
    public enum Format: String, Sendable, CaseIterable {
        case text, json, sql
    }

    /// The lines for one event (none for an event the format does not show), each ending in
    /// a line break. `columns`, `key` and `hasRowid` are the current table's, as its
    /// ``DatabaseDiff/Event/table`` event gave them.
    public static func lines(_ event: DatabaseDiff.Event, format: Format, columns: [String], key: [String], hasRowid: Bool = true) -> String {
        switch format {
        case .text: text(event, columns: columns, key: key)
        case .json: json(event, columns: columns, key: key)
        case .sql: sql(event, columns: columns, key: key, hasRowid: hasRowid)
        }
    }

    /// The closing line of the whole comparison (the summary, or the end of the transaction).
    public static func end(_ summary: DatabaseDiff.Summary, format: Format) -> String {
        switch format {
        case .text:
            summary.isEqual ? "The databases hold the same records.\n"
                : "\(summary.added) added, \(summary.deleted) deleted, \(summary.changed) changed\(summary.schemaDiffers ? "; the schemas differ" : "").\n"
        case .json: "{\"summary\": {\"added\": \(summary.added), \"deleted\": \(summary.deleted), \"changed\": \(summary.changed), \"schemaDiffers\": \(summary.schemaDiffers)}}\n"
        case .sql: "COMMIT;\nPRAGMA foreign_keys = ON;\n"
        }
    }

    /// The opening line of the whole comparison.
    public static func start(format: Format) -> String {
        // (Foreign keys off while it runs: tables come in name order, parents not first, and a
        // cascade must not take rows the script goes on to change.)
        format == .sql ? "PRAGMA foreign_keys = OFF;\nBEGIN;\n" : ""
    }

    // MARK: - Text

    private static func text(_ event: DatabaseDiff.Event, columns: [String], key: [String]) -> String {
        switch event {
        case .schema(let sentence): return "schema: \(sentence)\n"
        case .table(_, _, _, let note?, _): return "note: \(note)\n"
        case .table, .created, .dropped: return ""
        case .added(let table, let keyValues, let values):
            return "+ \(table) \(label(keyValues)): \(pairs(columns, values))\n"
        case .deleted(let table, let keyValues, let values):
            return "- \(table) \(label(keyValues)): \(pairs(columns, values))\n"
        case .changed(let table, let keyValues, let fields):
            return "~ \(table) \(label(keyValues)): " + fields.map { "\($0.column) \(shown($0.old)) → \(shown($0.new))" }.joined(separator: ", ") + "\n"
        }
    }

    /// A record's key as a person reads it: `3`, `7/red`, or `(row)` for rows compared whole.
    private static func label(_ key: [Value]) -> String {
        key.isEmpty ? "(row)" : key.map(shown).joined(separator: "/")
    }

    private static func pairs(_ columns: [String], _ values: [Value]) -> String {
        zip(columns, values).map { "\($0) \(shown($1))" }.joined(separator: ", ")
    }

    /// A value in text output: text quoted (so "" and NULL differ) with its control
    /// characters written as escapes (a value cannot make a line of its own), a blob as hex.
    public static func shown(_ value: Value) -> String {
        switch value {
        case .null: "NULL"
        case .integer(let int): String(int)
        case .real(let double): Exporter.realText(double)
        case .text(let text): "“\(escaped(text))”"
        case .blob(let data): "x'\(data.map { String(format: "%02x", $0) }.joined())'"
        case .decimal(let text): text
        case .boolean(let flag): flag ? "true" : "false"
        }
    }

    private static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F: out += String(format: "\\u{%02x}", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    // MARK: - JSON Lines

    private static func json(_ event: DatabaseDiff.Event, columns: [String], key: [String]) -> String {
        var out: [UInt8] = []
        func string(_ text: String) { Exporter.appendJSONString(text, to: &out) }
        func object(_ names: [String], _ values: [Value]) {
            out += Array(RecordText.json(columns: names, values: values).utf8)
        }
        func head(_ table: String, _ op: String, _ keyValues: [Value]) {
            out += Array("{\"table\": ".utf8); string(table)
            out += Array(", \"op\": ".utf8); string(op)
            if !key.isEmpty { out += Array(", \"key\": ".utf8); object(key, keyValues) }
        }
        switch event {
        case .schema(let sentence):
            out += Array("{\"schema\": ".utf8); string(sentence); out += Array("}\n".utf8)
        case .table(let table, _, _, let note?, _):
            out += Array("{\"table\": ".utf8); string(table); out += Array(", \"note\": ".utf8); string(note); out += Array("}\n".utf8)
        case .table, .created, .dropped:
            break
        case .added(let table, let keyValues, let values):
            head(table, "add", keyValues); out += Array(", \"values\": ".utf8); object(columns, values); out += Array("}\n".utf8)
        case .deleted(let table, let keyValues, let values):
            head(table, "delete", keyValues); out += Array(", \"values\": ".utf8); object(columns, values); out += Array("}\n".utf8)
        case .changed(let table, let keyValues, let fields):
            head(table, "change", keyValues)
            out += Array(", \"old\": ".utf8); object(fields.map(\.column), fields.map(\.old))
            out += Array(", \"new\": ".utf8); object(fields.map(\.column), fields.map(\.new))
            out += Array("}\n".utf8)
        }
        return String(decoding: out, as: UTF8.self)
    }

    // MARK: - SQL

    private static func sql(_ event: DatabaseDiff.Event, columns: [String], key: [String], hasRowid: Bool) -> String {
        func comment(_ text: String) -> String {
            "-- " + text.replacingOccurrences(of: "\r", with: " ").replacingOccurrences(of: "\n", with: " ") + "\n"
        }
        // The rowid, when it is what tells records apart: written too, so the copy keeps it.
        let rowidKey = !key.isEmpty && !key.allSatisfy(columns.contains)
        switch event {
        case .schema(let sentence): return comment(sentence)
        case .table(_, _, _, let note?, _): return comment(note)
        case .table: return ""
        case .created(_, let create): return create + ";\n"
        case .dropped(let table): return "DROP TABLE \(table.quotedIdentifier);\n"
        case .added(let table, let keyValues, let values):
            let names = (rowidKey ? key : []) + columns
            let all = (rowidKey ? keyValues : []) + values
            return "INSERT INTO \(table.quotedIdentifier) (\(names.map(name).joined(separator: ", "))) VALUES (\(all.map(literal).joined(separator: ", ")));\n"
        case .deleted(let table, let keyValues, let values):
            if !key.isEmpty {
                guard !keyValues.contains(where: \.isNull) else { return comment("not written: a record of \(table) whose key holds NULL is deleted in B, and NULL tells no record apart") }
                return "DELETE FROM \(table.quotedIdentifier) WHERE \(condition(key, keyValues));\n"
            }
            // A row compared whole: one of its copies goes, matched exactly (storage class and
            // bytes, whatever the column's affinity or collation).
            let exact = exactCondition(columns, values)
            guard hasRowid else { return "DELETE FROM \(table.quotedIdentifier) WHERE \(exact);\n" }
            return "DELETE FROM \(table.quotedIdentifier) WHERE rowid IN (SELECT rowid FROM \(table.quotedIdentifier) WHERE \(exact) LIMIT 1);\n"
        case .changed(let table, let keyValues, let fields):
            guard !keyValues.contains(where: \.isNull) else { return comment("not written: a record of \(table) whose key holds NULL changed in B, and NULL tells no record apart") }
            let set = fields.map { "\(name($0.column)) = \(literal($0.new))" }.joined(separator: ", ")
            return "UPDATE \(table.quotedIdentifier) SET \(set) WHERE \(condition(key, keyValues));\n"
        }
    }

    /// A column's name in SQL: quoted, but the rowid's names bare.
    static func name(_ column: String) -> String {
        ["rowid", "_rowid_", "oid"].contains(column.lowercased()) ? column : column.quotedIdentifier
    }

    /// `"a" IS 1 AND "b" IS 'x'`: a key's match.
    private static func condition(_ names: [String], _ values: [Value]) -> String {
        zip(names, values).map { "\(name($0)) IS \(literal($1))" }.joined(separator: " AND ")
    }

    /// The same values exactly: storage class, and text and blobs compared as bytes.
    private static func exactCondition(_ names: [String], _ values: [Value]) -> String {
        zip(names, values).map { column, value in
            let quoted = name(column)
            if value.isNull { return "\(quoted) IS NULL" }
            return "(typeof(\(quoted)) = '\(value.typeName)' AND \(quoted) = \(literal(value)) COLLATE BINARY)"
        }.joined(separator: " AND ")
    }

    /// A value as an SQL literal that reads back as the same value and storage class.
    static func literal(_ value: Value) -> String {
        switch value {
        case .null: return "NULL"
        case .integer(let int): return String(int)
        case .real(let double):
            if double.isNaN { return "NULL" }
            if double.isInfinite { return double > 0 ? "9e999" : "-9e999" }
            return Exporter.realText(double)
        case .text(let text): return "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
        case .blob(let data): return "X'" + data.map { String(format: "%02X", $0) }.joined() + "'"
        case .decimal(let text): return DecimalText(Substring(text)) == nil ? "'" + text + "'" : text
        case .boolean(let flag): return flag ? "TRUE" : "FALSE"
        }
    }
}
