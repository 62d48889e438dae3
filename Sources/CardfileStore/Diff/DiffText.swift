import Foundation

/// The events of a ``DatabaseDiff`` as lines of text, of JSON, or of SQL that makes A into B.
public enum DiffText {
    public enum Format: String, Sendable, CaseIterable {
        case text, json, sql
    }

    /// The lines for one event (none for an event the format does not show), each ending in
    /// a line break. `columns` are the current table's, as its ``DatabaseDiff/Event/table``
    /// event named them.
    public static func lines(_ event: DatabaseDiff.Event, format: Format, columns: [String], key: [String]) -> String {
        switch format {
        case .text: text(event, columns: columns, key: key)
        case .json: json(event, columns: columns, key: key)
        case .sql: sql(event, columns: columns, key: key)
        }
    }

    /// The closing line of the whole comparison (the summary, or the end of the transaction).
    public static func end(_ summary: DatabaseDiff.Summary, format: Format) -> String {
        switch format {
        case .text:
            summary.isEqual ? "The databases hold the same records.\n"
                : "\(summary.added) added, \(summary.deleted) deleted, \(summary.changed) changed\(summary.schemaDiffers ? "; the schemas differ" : "").\n"
        case .json: "{\"summary\": {\"added\": \(summary.added), \"deleted\": \(summary.deleted), \"changed\": \(summary.changed), \"schemaDiffers\": \(summary.schemaDiffers)}}\n"
        case .sql: "COMMIT;\n"
        }
    }

    /// The opening line of the whole comparison.
    public static func start(format: Format) -> String {
        format == .sql ? "BEGIN;\n" : ""
    }

    // MARK: - Text

    private static func text(_ event: DatabaseDiff.Event, columns: [String], key: [String]) -> String {
        switch event {
        case .schema(let sentence): return "schema: \(sentence)\n"
        case .table(_, _, _, let note?): return "note: \(note)\n"
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

    /// A value in text output: text quoted (so "" and NULL differ), a blob as hex.
    public static func shown(_ value: Value) -> String {
        switch value {
        case .null: "NULL"
        case .integer(let int): String(int)
        case .real(let double): Exporter.realText(double)
        case .text(let text): "“\(text)”"
        case .blob(let data): "x'\(data.map { String(format: "%02x", $0) }.joined())'"
        }
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
        case .table(let table, _, _, let note?):
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

    private static func sql(_ event: DatabaseDiff.Event, columns: [String], key: [String]) -> String {
        switch event {
        case .schema(let sentence): return "-- \(sentence.replacingOccurrences(of: "\n", with: " "))\n"
        case .table(_, _, _, let note?): return "-- \(note)\n"
        case .table: return ""
        case .created(_, let create): return create + ";\n"
        case .dropped(let table): return "DROP TABLE \(table.quotedIdentifier);\n"
        case .added(let table, _, let values):
            return "INSERT INTO \(table.quotedIdentifier) (\(columns.map(\.quotedIdentifier).joined(separator: ", "))) VALUES (\(values.map(literal).joined(separator: ", ")));\n"
        case .deleted(let table, let keyValues, let values):
            guard key.isEmpty else { return "DELETE FROM \(table.quotedIdentifier) WHERE \(condition(key, keyValues));\n" }
            // A row compared whole: one of its copies goes.
            return "DELETE FROM \(table.quotedIdentifier) WHERE rowid IN (SELECT rowid FROM \(table.quotedIdentifier) WHERE \(condition(columns, values)) LIMIT 1);\n"
        case .changed(let table, let keyValues, let fields):
            let set = fields.map { "\($0.column.quotedIdentifier) = \(literal($0.new))" }.joined(separator: ", ")
            return "UPDATE \(table.quotedIdentifier) SET \(set) WHERE \(condition(key, keyValues));\n"
        }
    }

    /// `"a" IS 1 AND "b" IS NULL`.
    private static func condition(_ names: [String], _ values: [Value]) -> String {
        zip(names, values).map { name, value in
            "\(name == "rowid" ? "rowid" : name.quotedIdentifier) IS \(literal(value))"
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
        }
    }
}
