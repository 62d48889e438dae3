import CardfileStore
import CardfileTerminal
import Foundation

/// `:schema`: the table of the list (or the one selected on the tables screen) described in
/// a panel: its columns, keys, constraints, indexes, the keys of other tables pointing at it,
/// its triggers, rows and size. Read off the loop (the rows are counted).
extension CardfileApp {
    func describeSchema(now: ContinuousClock.Instant) {
        if let query = list?.query {
            guard let records = query.records, let table = container.schema.table(named: records.table) else {
                return show("A statement's result has no schema of its own (\(query.readOnlyReason ?? "")); :schema describes a table.", role: .warning, now: now)
            }
            return describe(table, now: now)
        }
        guard let table = list?.table ?? tables?.selectedTable else { return show("Open a table first, or select one.", role: .warning, now: now) }
        describe(table, now: now)
    }

    private func describe(_ table: TableSchema, now: ContinuousClock.Instant) {
        show("Describing \(table.name)…", role: .muted, now: now)
        let (name, container) = (table.name, self.container)
        errands.run(slow: true) {
            .tableReport(Result { () throws(StoreError) -> TableReport in try container.report(on: name) })
        }
    }

    func show(report result: Result<TableReport, StoreError>, now: ContinuousClock.Instant) {
        switch result {
        case .failure(let error):
            show(error.message(notDone: "Not described"), role: .error, now: now)
        case .success(let report):
            guard overlay == nil else { return show("The schema of \(report.table.name) is ready: :schema shows it again.", now: now) }
            let kind = report.table.isView ? "view" : "table"
            let (lines, links) = Self.lines(of: report)
            overlay = .schema(SchemaPanel(title: "The \(kind) \(report.table.name)", lines: lines, links: links))
            notice = nil
        }
    }

    /// The panel's lines: the columns, one a line, then each other part under its heading;
    /// and the lines that name another table (its foreign keys, and those pointing here).
    static func lines(of report: TableReport) -> (lines: [String], links: [Int: String]) {
        var links: [Int: String] = [:]
        let table = report.table
        let keyColumns = Set(table.primaryKey.columnNames.map { $0.lowercased() })
        var lines = ["Columns"]
        let width = min(24, table.columns.map { $0.name.count }.max() ?? 0)
        for column in table.columns where !column.isHidden {
            var parts = [column.declaredType.isEmpty ? "(no type)" : column.declaredType, "affinity \(column.affinity.rawValue.lowercased())"]
            if keyColumns.contains(column.name.lowercased()) { parts.append("key") }
            if column.isNotNull { parts.append("NOT NULL") }
            if let defaultSQL = column.defaultSQL { parts.append("default \(defaultSQL)") }
            if case .custom(let name) = column.collation { parts.append("COLLATE \(name)") }
            if column.collation == .nocase { parts.append("COLLATE NOCASE") }
            if column.collation == .rtrim { parts.append("COLLATE RTRIM") }
            switch column.generation {
            case .none: break
            case .virtual: parts.append("generated as (\(report.generated[column.name] ?? "?")), virtual")
            case .stored: parts.append("generated as (\(report.generated[column.name] ?? "?")), stored")
            }
            let name = column.name.padding(toLength: max(width, column.name.count), withPad: " ", startingAt: 0)
            lines.append("  \(name)  \(parts.joined(separator: ", "))")
        }
        func section(_ title: String, _ items: [String], linking tables: [String] = []) {
            lines.append("")
            lines.append(title)
            if items.isEmpty { lines.append("  none") }
            for (index, item) in items.enumerated() {
                if tables.indices.contains(index) { links[lines.count] = tables[index] }
                lines.append("  " + item)
            }
        }
        let key: String = switch table.primaryKey {
        case .rowidAlias(let column): "\(column) (the rowid)"
        case .implicitRowid(let accessor): "none declared: the rowid (\(accessor))"
        case .columns(let columns): columns.joined(separator: ", ")
        case .withoutRowid(let columns): "\(columns.joined(separator: ", ")) (WITHOUT ROWID)"
        case .unidentifiable: "none: rows cannot be told apart, so they are only read"
        }
        section("Primary key", [key])
        section("Unique", table.uniqueIndexes.map { "\($0.columns.joined(separator: ", "))\($0.isPartial ? " (partial)" : "")" })
        section("Checks", table.checks.map { check in (check.name.map { "\($0): " } ?? "") + check.expression })
        func action(_ key: ForeignKeyDescription) -> String {
            var actions: [String] = []
            if key.onDelete != .noAction { actions.append("on delete \(key.onDelete.rawValue.lowercased())") }
            if key.onUpdate != .noAction { actions.append("on update \(key.onUpdate.rawValue.lowercased())") }
            return actions.isEmpty ? "" : " (\(actions.joined(separator: ", ")))"
        }
        section("Foreign keys (Enter opens the table)", table.foreignKeys.map { key in
            "\(key.columns.joined(separator: ", ")) → \(key.parentTable)(\(key.parentColumns.map { $0 ?? "its key" }.joined(separator: ", ")))\(action(key))"
        }, linking: table.foreignKeys.map(\.parentTable))
        section("Referenced by", report.referencedBy.map { "\($0.table).\($0.key.columns.joined(separator: ", "))\(action($0.key))" },
                linking: report.referencedBy.map(\.table))
        section("Indexes", table.indexes.map { index in
            let columns = index.columns.map { ($0.name ?? "an expression") + ($0.isDescending ? " desc" : "") }.joined(separator: ", ")
            return "\(index.name) (\(columns))\(index.isUnique ? ", unique" : "")\(index.isPartial ? ", partial" : "")"
        })
        section("Triggers", report.triggers.map { trigger in
            let text = trigger.sql.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
            return "\(trigger.name): \(text.count > 120 ? String(text.prefix(120)) + "…" : text)"
        })
        lines.append("")
        lines.append("Rows     \(ValueText.count(report.rows))")
        if let bytes = report.bytes {
            lines.append("On disk  \(Self.size(bytes)) (the table and its indexes)")
        }
        // (Names, defaults and SQL are the file's: their control characters are shown, not sent.)
        return (lines.map { TerminalText.visible($0) }, links)
    }

    /// Enter on a line of `:schema` naming a table: its list, over the screen it was opened on.
    func open(_ name: String, now: ContinuousClock.Instant) {
        guard let table = container.schema.table(named: name) else { return show("There is no table \(name).", role: .warning, now: now) }
        do {
            try openList(table)
        } catch {
            show(error.message, role: .error, now: now)
        }
    }

    /// `12 KiB`, `3.4 MiB`.
    static func size(_ bytes: Int) -> String {
        if bytes < 1024 { return "\(bytes) bytes" }
        if bytes < 1024 * 1024 { return "\(bytes / 1024) KiB" }
        if bytes < 1024 * 1024 * 1024 { return String(format: "%.1f MiB", Double(bytes) / 1_048_576) }
        return String(format: "%.1f GiB", Double(bytes) / 1_073_741_824)
    }
}
