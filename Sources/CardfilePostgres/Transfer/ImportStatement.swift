import CardfileStore

/// The statement an import sends for rows with one set of columns, as its mode says.
struct ImportStatement {
    /// The table's columns the values go to, in the rows' order.
    let columns: [Int]
    /// The columns an existing row is found by (upsert, replace).
    let target: [Int]
    /// How the rows a statement returns are counted.
    let counting: Counting
    enum Counting {
        /// Each row returned was inserted (the others were left alone).
        case returnedAreInserted
        /// Each row returned says whether it was inserted (`xmax = 0`) or updated.
        case returnedSayWhich
        /// One row a statement, its key looked for first: a relation with no `xmax` to return
        /// (a partitioned table).
        case keyLookedUpFirst
    }
    /// With ``Counting/keyLookedUpFirst``: whether a row's key is there (a `?` for each key value).
    let existsSQL: String?
    /// For postgres-nio's `copyFrom`, which wraps what it is given in double quotes as it
    /// is: the table as `schema"."name` (so that its quotes complete `"schema"."name"`) and
    /// each column with its inner quotes doubled.
    let copyTable: String
    let copyColumns: [String]
    /// Rows one `INSERT` carries: at most 1,000, and never more than PostgreSQL's 65,535
    /// values a statement (one for a row of no columns: `DEFAULT VALUES`).
    let rowsPerStatement: Int
    /// `INSERT INTO t (…) VALUES`, and what follows the rows.
    private let head: String
    private let tail: String
    private let placeholders: String

    /// `plainTable`: a table that is not partitioned, whose rows can return `xmax`.
    init(table: TableSchema, columns: [Int], mode: ImportOptions.Mode, target: [Int]?, plainTable: Bool) {
        self.columns = columns
        self.target = target ?? []
        let quoted = table.quotedColumnNames
        // (Both are quoted identifiers, `"…"`, with inner quotes doubled.)
        copyTable = String(table.quotedName.dropFirst().dropLast())
        copyColumns = columns.map { String(quoted[$0].dropFirst().dropLast()) }
        let updating = (mode == .upsert || mode == .replace) && target != nil
        rowsPerStatement = columns.isEmpty || (updating && !plainTable) ? 1 : min(1_000, 65_535 / columns.count)
        head = columns.isEmpty
            ? "INSERT INTO \(table.quotedName) DEFAULT VALUES"
            : "INSERT INTO \(table.quotedName) AS cardfile_row (\(columns.map { quoted[$0] }.joined(separator: ", "))) VALUES "
        placeholders = "(" + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ")"
        // `xmax = 0` tells a row an upsert inserted from one it updated; a partitioned table
        // refuses it, and its rows go one at a time, each key looked for first.
        let returning = updating && plainTable ? " RETURNING (xmax = 0)" : " RETURNING TRUE"
        switch (mode, target) {
        case (.insert, _), (.replace, nil):
            tail = returning
        case (.ignore, _):
            tail = " ON CONFLICT DO NOTHING" + returning
        case (.upsert, let target?), (.replace, let target?):
            let targetNames = target.map { quoted[$0] }.joined(separator: ", ")
            let others = columns.filter { !target.contains($0) }
            if mode == .replace {
                // The row as the file has it, and every other writable column as a new row
                // would have it: SQLite's REPLACE.
                let unset = table.columns.indices.filter { table.columns[$0].isWritable && !columns.contains($0) && !target.contains($0) }
                let sets = others.map { "\(quoted[$0]) = EXCLUDED.\(quoted[$0])" } + unset.map { "\(quoted[$0]) = DEFAULT" }
                tail = sets.isEmpty
                    ? " ON CONFLICT (\(targetNames)) DO UPDATE SET \(quoted[target[0]]) = EXCLUDED.\(quoted[target[0]])" + returning
                    : " ON CONFLICT (\(targetNames)) DO UPDATE SET \(sets.joined(separator: ", "))" + returning
            } else if others.isEmpty {
                tail = " ON CONFLICT (\(targetNames)) DO NOTHING" + returning
            } else {
                let sets = others.map { "\(quoted[$0]) = EXCLUDED.\(quoted[$0])" }.joined(separator: ", ")
                // Compared as text: json has no equality, and any type has a text form.
                let mine = others.map { "cardfile_row.\(quoted[$0])" }.joined(separator: ", ")
                let theirs = others.map { "EXCLUDED.\(quoted[$0])" }.joined(separator: ", ")
                tail = " ON CONFLICT (\(targetNames)) DO UPDATE SET \(sets) WHERE ROW(\(mine))::text IS DISTINCT FROM ROW(\(theirs))::text" + returning
            }
        case (.upsert, nil):
            tail = returning   // (never sent: such rows are refused first)
        }
        counting = !updating ? .returnedAreInserted : plainTable ? .returnedSayWhich : .keyLookedUpFirst
        let keys = (target ?? []).map { quoted[$0] }
        existsSQL = counting == .keyLookedUpFirst
            ? "SELECT count(*) FROM \(table.quotedName) WHERE " + keys.map { "\($0) = ?" }.joined(separator: " AND ")
            : nil
    }

    /// The statement for `rows` rows, with a `?` for each value.
    func sql(rows: Int) -> String {
        if columns.isEmpty { return head + tail }
        var sql = head
        sql.reserveCapacity(head.count + tail.count + rows * (placeholders.count + 2))
        for row in 0..<rows {
            if row > 0 { sql += ", " }
            sql += placeholders
        }
        return sql + tail
    }
}
