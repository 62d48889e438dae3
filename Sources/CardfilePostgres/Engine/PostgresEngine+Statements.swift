import CardfileStore
import PostgresNIO

/// The SQL screen on PostgreSQL: a statement checked and classified by its first word and the
/// server's planner, a result's columns described by the server, and the server's refusals
/// in its own words.
extension PostgresEngine {
    /// Statements the screen does not run, by first word, with the reason.
    private static let notRun: [String: String] = {
        var reasons: [String: String] = [:]
        for verb in ["BEGIN", "START", "COMMIT", "END", "ROLLBACK", "ABORT", "SAVEPOINT", "RELEASE", "PREPARE"] {
            reasons[verb] = "\(verb) is not run here: each statement runs in a transaction of its own, and a write is asked about first."
        }
        for verb in ["SET", "RESET", "LISTEN", "UNLISTEN", "NOTIFY", "DISCARD", "LOAD", "LOCK", "DEALLOCATE", "DECLARE", "FETCH", "CLOSE", "MOVE"] {
            reasons[verb] = "\(verb) is not run here: it would act on one of Cardfile's connections only. Run it with psql."
        }
        reasons["VACUUM"] = "VACUUM is not run here: it cannot run inside a transaction. Run it with psql."
        reasons["COPY"] = "COPY is not run here: :import and :export move rows between files and tables."
        reasons["SHOW"] = "SHOW is not run here: a setting can be selected, as in SELECT current_setting('work_mem')."
        reasons["EXPLAIN"] = "EXPLAIN is not run here: its result is the server's plan, not rows of the database. Run it with psql."
        return reasons
    }()

    private static let reading: Set<String> = ["SELECT", "VALUES", "TABLE"]
    private static let writingRows: Set<String> = ["INSERT", "UPDATE", "DELETE", "MERGE"]
    private static let changingSchema: Set<String> = [
        "CREATE", "DROP", "ALTER", "ANALYZE", "REINDEX", "COMMENT", "GRANT", "REVOKE", "TRUNCATE", "CLUSTER", "REFRESH", "CALL", "DO",
    ]

    package func compile(_ sql: String) throws -> SQLStatement {
        // (Text the store's tokenizer cannot read, such as a dollar-quoted body, goes whole:
        // the server refuses a second statement in it.)
        let first = SQLStatement.firstStatement(sql)
        if let second = first?.second {
            throw StoreError.statementNotRun(reason: "One statement at a time: the text goes on after the first one ends (at character \(second + 1)).")
        }
        var text = first?.text ?? sql
        while let last = text.last, last == ";" || last.isWhitespace { text.removeLast() }
        let verb = first == nil ? Self.leadingWord(text) : SQLStatement.firstWord(text)
        guard !verb.isEmpty else {
            throw StoreError.statementNotRun(reason: "There is no statement to run: type one, then F5 or Ctrl-E.")
        }
        let kind: SQLStatement.Kind
        if Self.reading.contains(verb) {
            kind = .read
        } else if verb == "WITH" {
            // (PostgreSQL's WITH may hold a write in a parenthesized part: any such word makes
            // the statement a write. A text the tokenizer cannot read is taken as a read: as
            // a read it runs inside a subquery, where the server refuses a write.)
            kind = SQLStatement.writeVerbs(text).first.map { .rows(verb: $0) } ?? .read
        } else if Self.writingRows.contains(verb) {
            kind = .rows(verb: verb)
        } else if Self.changingSchema.contains(verb) {
            kind = .schema(verb: verb)
        } else if let reason = Self.notRun[verb] {
            throw StoreError.statementNotRun(reason: reason)
        } else {
            // A word the server does not know (a typo) is its syntax error, in its words; a
            // statement it reads but the screen does not run is said so.
            try parseOnly(text)
            throw StoreError.statementNotRun(reason: "\(verb) is not run here: the SQL screen runs SELECT, VALUES, TABLE, WITH, INSERT, UPDATE, DELETE, MERGE, and statements that change the schema (CREATE, ALTER, DROP…).")
        }
        // The server parses and plans a statement that reads or writes rows, running nothing.
        if case .schema = kind {} else {
            _ = try read { session in try session.rows("EXPLAIN " + text, []) }
        }
        return SQLStatement(text: text, kind: kind)
    }

    /// The first word of `text` (letters only), in capitals, past white space and comments
    /// at its start.
    private static func leadingWord(_ text: String) -> String {
        var rest = Substring(text)
        while true {
            rest = rest.drop { $0.isWhitespace }
            if rest.hasPrefix("--") {
                rest = rest.drop { $0 != "\n" }
            } else if rest.hasPrefix("/*"), let end = rest.range(of: "*/") {
                rest = rest[end.upperBound...]
            } else {
                break
            }
        }
        return String(rest.prefix { $0.isLetter }).uppercased()
    }

    /// The columns are read from a row of the result that is never run: the statement is the
    /// inside of a lateral join asked for no rows, so the join gives one row of NULLs, typed
    /// and named as the result's. Each type is named as the catalog names a column's
    /// (`format_type`). Where each column comes from, and whether the rows are one table's,
    /// is read from the plan (`EXPLAIN (VERBOSE, FORMAT JSON)`; see ``ResultPlan``).
    package func describeResult(of select: String) throws -> (columns: [ResultColumn], rowsOf: String?) {
        let probe = """
            SELECT "__cf_probe".* FROM (SELECT 1) AS "__cf_one"
            LEFT JOIN LATERAL (SELECT * FROM (
            \(select)
            ) AS "__cf_inner" LIMIT 0) AS "__cf_probe" ON TRUE
            """
        let session = try takeReader()
        defer { giveBack(session) }
        guard let row = try session.rows(PostgresQuery(unsafeSQL: probe)).first else { return ([], nil) }
        let cells = Array(row)
        let types = Set(cells.map { Int64($0.dataType.rawValue) }).sorted()
        var names: [Int64: String] = [:]
        if !types.isEmpty {
            let list = types.map(String.init).joined(separator: ", ")
            for typeRow in try session.rows(PostgresQuery(unsafeSQL: "SELECT oid::int8, format_type(oid, -1) FROM pg_type WHERE oid IN (\(list))")) {
                let (oid, name) = try typeRow.decode((Int64, String).self)
                names[oid] = name
            }
        }
        // (The plan comes as `json`, whose bytes are its text.)
        let planText = try session.rows(PostgresQuery(unsafeSQL: "EXPLAIN (VERBOSE, FORMAT JSON) " + select)).first?.first?.bytes.map { String(buffer: $0) }
        let plan = planText.flatMap(ResultPlan.init(json:))
        let table = plan?.quotedTable
        let columns = cells.enumerated().map { index, cell in
            let origin = table.flatMap { _ in plan?.column(at: index) }
            return ResultColumn(name: cell.columnName, declaredType: names[Int64(cell.dataType.rawValue)],
                                table: origin == nil ? nil : table, column: origin)
        }
        return (columns, plan?.isOneRowEach == true ? table : nil)
    }

    package func statementError(_ error: any Error) -> StoreError? {
        guard case .refused(let message, let detail, let state)? = error as? PostgresProblem else { return nil }
        // (57014 is also a statement_timeout's: only a cancel asked for is the person's.)
        if state == "57014", message.contains("user request") { return .queryCancelled }
        return .sqlRefused(message: detail.map { "\(message) (\($0))" } ?? message, offset: nil, engine: name)
    }
}

/// `:schema` on PostgreSQL: what the catalogs say beyond the table's description.
extension PostgresEngine {
    package func report(on table: TableSchema) throws -> TableReport {
        var report = TableReport(table: table)
        let name = Value.text(table.quotedName)
        try read { session in
            for row in try session.rows("""
                SELECT tgname::text, pg_get_triggerdef(oid) FROM pg_catalog.pg_trigger
                WHERE tgrelid = ?::regclass AND NOT tgisinternal ORDER BY tgname
                """, [name]) {
                if case .text(let trigger) = row[0], case .text(let definition) = row[1] { report.triggers.append((trigger, definition)) }
            }
            for row in try session.rows("""
                SELECT a.attname::text, CASE WHEN a.attidentity = 'a' THEN 'identity, always' WHEN a.attidentity = 'd' THEN 'identity, by default'
                                             ELSE pg_get_expr(d.adbin, d.adrelid) END
                FROM pg_catalog.pg_attribute a LEFT JOIN pg_catalog.pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
                WHERE a.attrelid = ?::regclass AND a.attnum > 0 AND NOT a.attisdropped AND (a.attidentity <> '' OR a.attgenerated <> '')
                """, [name]) {
                if case .text(let column) = row[0], case .text(let expression) = row[1] { report.generated[column] = expression }
            }
            report.rows = try session.integer("SELECT count(*) FROM \(table.quotedName)", []) ?? 0
            if !table.isView {
                report.bytes = try session.integer("SELECT pg_total_relation_size(?::regclass)", [name])
            }
        }
        return report
    }
}
