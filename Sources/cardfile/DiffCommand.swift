import ArgumentParser
import CardfileStore
import CardfileTerminal
import Foundation

extension Cardfile {
    /// `cardfile diff A B`: the records two databases hold differently.
    struct Diff: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Compare two databases record by record (by primary key): exit 0 when equal, 1 when different, 2 on trouble.",
            discussion: """
                Schema differences come first: tables and columns on one side only, a changed \
                type. Then each table's records: + added in B, - deleted from A, ~ changed \
                (old → new per field). A table without a declared key is compared by rowid, \
                with a note; one whose key changed is compared by its rows. --format json \
                writes one JSON object per line; --format sql writes statements that make A into B.
                """)

        @Argument(help: "The first database (A).")
        var first: String

        @Argument(help: "The second database (B).")
        var second: String

        @Option(name: .long, help: "Compare only this table (repeat for several).")
        var table: [String] = []

        @Option(name: .long, help: "text (default), json (one object per line) or sql (statements that make A into B).")
        var format: String = "text"

        func run() throws {
            guard let format = DiffText.Format(rawValue: format.lowercased()) else {
                throw fail("--format must be text, json or sql, not “\(format)”")
            }
            let a: Container, b: Container
            do {
                a = try Container(path: first, options: StoreOptions(createIfMissing: false, readOnly: true))
                b = try Container(path: second, options: StoreOptions(createIfMissing: false, readOnly: true))
            } catch {
                throw fail(error.message)
            }
            // On a terminal, data is shown, never obeyed: control characters become visible.
            let onTerminal = isatty(1) != 0
            var buffered: [UInt8] = []
            func write(_ text: String) throws {
                let shown = onTerminal ? TerminalText.visible(text, keepingLines: true) : text
                buffered += Array(shown.utf8)
                if buffered.count > 1 << 16 {
                    try FileHandle.standardOutput.write(contentsOf: Data(buffered))
                    buffered.removeAll(keepingCapacity: true)
                }
            }
            var columns: [String] = []
            var key: [String] = []
            var hasRowid = true
            let summary: DatabaseDiff.Summary
            do {
                try write(DiffText.start(format: format))
                summary = try DatabaseDiff.run(a, b, tables: table.isEmpty ? nil : table, deletesFirst: format == .sql) { event in
                    if case .table(_, let names, let keyNames, _, let rowid) = event {
                        columns = names
                        key = keyNames
                        hasRowid = rowid
                    }
                    try write(DiffText.lines(event, format: format, columns: columns, key: key, hasRowid: hasRowid))
                }
                try write(DiffText.end(summary, format: format))
                try FileHandle.standardOutput.write(contentsOf: Data(buffered))
            } catch let error as StoreError {
                throw fail(error.message)
            } catch {
                throw fail("cannot write the differences: \(error.localizedDescription)")
            }
            if !summary.isEqual { throw ExitCode(1) }
        }
    }
}

extension Cardfile {
    /// `cardfile dump DB`: the database as text, for `git diff` (`textconv`).
    struct Dump: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a database as text: its CREATE statements, then every record in key order, a line each (git's textconv).")

        @Argument(help: "The SQLite database.")
        var database: String

        func run() throws {
            let container: Container
            do {
                container = try Container(path: database, options: StoreOptions(createIfMissing: false, readOnly: true))
            } catch {
                throw fail(error.message)
            }
            let onTerminal = isatty(1) != 0
            var buffered: [UInt8] = []
            do {
                try DatabaseDump.run(container) { line in
                    buffered += Array((onTerminal ? TerminalText.visible(line, keepingLines: true) : line).utf8)
                    if buffered.count > 1 << 16 {
                        try FileHandle.standardOutput.write(contentsOf: Data(buffered))
                        buffered.removeAll(keepingCapacity: true)
                    }
                }
                try FileHandle.standardOutput.write(contentsOf: Data(buffered))
            } catch let error as StoreError {
                throw fail(error.message)
            } catch {
                throw fail("cannot write the dump: \(error.localizedDescription)")
            }
        }
    }
}
