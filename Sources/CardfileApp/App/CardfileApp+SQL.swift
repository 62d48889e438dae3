import CardfileStore
import CardfileTerminal
import Foundation

/// What a statement of the SQL screen came to once compiled and counted off the loop.
enum StatementOutcome: Sendable {
    /// A SELECT: its result, with its rows counted (the whole query ran once).
    case result(QueryResult, rows: Int)
    /// A write: the rows it would change (nil for a schema statement), counted in a
    /// transaction that was rolled back.
    case write(SQLStatement, count: Int?)
}

/// The SQL screen: `:sql` or `Q` opens it; F5 or Ctrl-E runs the statement off the loop
/// (Esc cancels it); a result opens as a live list over it, a write is asked about with its
/// count and then run through the store, so every list and form hears of it.
extension CardfileApp {
    /// Opens the SQL screen, with the last statement typed; from a result, goes back to it.
    func openSQL(now: ContinuousClock.Instant) {
        if case .sql = screens.top { return }
        if case .sql? = screens.belowTop, list?.query != nil { return goBack() }
        if picking != nil { return show("Picking a record: Enter chooses it, Esc goes back without changing the field.", role: .warning, now: now) }
        // One SQL screen: a second would replace the result the first one's list shows.
        if screens.screens.contains(where: { if case .sql = $0 { true } else { false } }) {
            return show("The SQL screen is open already, below this screen: Esc goes back to it.", role: .warning, now: now)
        }
        let history = QueryHistory(folder: options.stateFolder).queries(database: container.path)
        screens.push(.sql(SQLScreen(history: history, text: lastStatement)))
    }

    func handle(_ key: KeyEvent, sql: SQLScreen, now: ContinuousClock.Instant) -> [AppCommand] {
        switch sql.handle(key, names: { completionNames() }, pageHeight: max(1, listHeight - 1)) {
        case .run:
            runStatement(on: sql, now: now)
        case .leave:
            if let running = sql.running {
                running.cancellation.cancel()
                show("Cancelling…", role: .muted, now: now)
            } else {
                lastStatement = sql.editor.text
                goBack()
            }
        case .candidates(let names):
            let shown = names.prefix(8).joined(separator: "  ")
            show(names.count > 8 ? shown + "  … (\(names.count))" : shown, role: .muted, now: now)
        case .noCompletion:
            show("No table or column name starts with what is before the cursor.", role: .muted, now: now)
        case .editExternally:
            return startExternalEdit(of: sql)
        case .action(let action):
            return common(action, now: now) ?? []
        case .handled, .ignored:
            break
        }
        return []
    }

    /// The names Tab completes: the tables and views, then their columns.
    private func completionNames() -> [String] {
        let tables = container.schema.tables
        return tables.map(\.name) + tables.flatMap { $0.columns.filter { !$0.isHidden }.map(\.name) }
    }

    /// F5 / Ctrl-E: compiles the statement and, off the loop, counts what it reads or would
    /// change; the answer comes back through ``take(_:now:)``.
    func runStatement(on sql: SQLScreen, now: ContinuousClock.Instant) {
        guard sql.running == nil else { return show("A statement is running: Esc cancels it.", role: .warning, now: now) }
        let text = sql.editor.text
        guard !text.allSatisfy(\.isWhitespace) else { return show("Type a statement first, then F5 or Ctrl-E runs it.", role: .warning, now: now) }
        let running = SQLScreen.RunningStatement(text: text, started: now, activity: "running")
        sql.running = running
        sql.errorOffset = nil
        sql.problem = nil
        sql.remember(text)
        show("Running… Esc cancels.", role: .muted, now: now)
        let (container, cancellation, path, folder) = (self.container, running.cancellation, container.path, options.stateFolder)
        errands.run {
            do {
                try QueryHistory(folder: folder).remember(text, database: path)
                return nil
            } catch {
                return .historyNotKept(error.localizedDescription)
            }
        }
        errands.runStatement {
            .statement(Result { () throws(StoreError) -> StatementOutcome in
                let statement = try container.compile(text)
                if statement.kind == .read {
                    let result = try container.openQuery(statement)
                    return .result(result, rows: try container.load(result, cancellation: cancellation))
                }
                return .write(statement, count: try container.rehearse(statement, cancellation: cancellation))
            })
        }
    }

    /// A statement was compiled and counted: its result opens as a list, a write is asked
    /// about, an error is said (and its place marked in the editor).
    func take(_ outcome: Result<StatementOutcome, StoreError>, now: ContinuousClock.Instant) {
        guard let sql = screens.sql ?? screens.screens.lazy.compactMap({ if case .sql(let sql) = $0 { sql } else { nil } }).last else { return }
        sql.running = nil
        switch outcome {
        case .failure(let error):
            say(error, on: sql, now: now)
        case .success(.result(let result, let rows)):
            guard case .sql = screens.top else { return container.closeQuery(result) }
            do {
                let list = try ListScreen(context: view, table: result.table, query: result, height: listHeight, refreshInterval: Self.refreshInterval,
                                          wake: { [inbox] in inbox.poke() })
                list.areaWidth = size.width
                screens.push(.list(list))
                let editable = result.records.map { "editable: Enter opens a record of \($0.table)" } ?? "read-only: \(result.readOnlyReason ?? "")"
                show("\(Self.rowCount(rows)) · \(editable) · Esc back to the SQL", role: .accent, now: now)
            } catch {
                show(error.message, role: .error, now: now)
            }
        case .success(.write(let statement, let count)):
            guard overlay == nil else { return show("Not run: close what is open, then run it again.", role: .warning, now: now) }
            if let readOnlyReason { return show("Read-only: \(readOnlyReason). Nothing was changed.", role: .warning, now: now) }
            let what: String = switch (statement.kind, count) {
            case (.rows(let verb), let count?): "\(Self.verbWord(verb)) \(Self.rowCount(count))?"
            case (.schema("TRUNCATE"), _): "Run this TRUNCATE statement? It deletes every row of the tables it names."
            case (.schema(let verb), _) where ["DO", "CALL"].contains(verb): "Run this \(verb) statement? It runs code on the server, which may change anything."
            case (.schema(let verb), _): "Run this \(verb) statement? It changes the database's schema."
            default: "Run this statement?"
            }
            let dialog = Dialog(title: "Run SQL", message: "\(what) (y/n)",
                                buttons: [DialogButton("Run", hotkey: "y", role: .error), DialogButton("Keep", hotkey: "n")],
                                selected: 1, cancelButton: 1)
            overlay = .question(QuestionDialog(dialog: dialog, question: .sqlWrite(statement)))
        }
    }

    /// The person said yes: the write runs off the loop, through the store.
    func write(_ statement: SQLStatement, now: ContinuousClock.Instant) {
        guard let sql = screens.sql else { return }
        let running = SQLScreen.RunningStatement(text: statement.text, started: now, activity: "writing")
        sql.running = running
        let (container, cancellation) = (self.container, running.cancellation)
        errands.runStatement {
            .statementWritten(statement, Result { () throws(StoreError) -> Int? in try container.run(statement, cancellation: cancellation) })
        }
    }

    func take(written statement: SQLStatement, _ result: Result<Int?, StoreError>, now: ContinuousClock.Instant) {
        screens.sql?.running = nil
        switch result {
        case .failure(let error):
            if let sql = screens.sql { say(error, on: sql, now: now) } else { show(error.message, role: .error, now: now) }
        case .success(let count):
            if case .schema = statement.kind { followSchema() }
            // Open forms meet the write as another program's commit.
            let news = formsFollowTheirSource()
            let done: String = switch (statement.kind, count) {
            case (.rows(let verb), let count?): "\(Self.pastVerb(verb)) \(Self.rowCount(count))."
            case (.schema(let verb), _): "\(verb) done. New tables are listed; a table's added or dropped columns show once the database is opened again."
            default: "Done."
            }
            show((news.map { $0.sentence + " " } ?? "") + done, role: .success, now: now)
        }
    }

    /// An error of a statement, said; SQLite's position is marked in the editor.
    private func say(_ error: StoreError, on sql: SQLScreen, now: ContinuousClock.Instant) {
        switch error {
        case .sqlRefused(_, let offset, _):
            sql.errorOffset = offset
            sql.problem = error.message
            show(error.message, role: .error, now: now)
        case .queryCancelled:
            show("Cancelled: nothing was changed.", role: .warning, now: now)
        default:
            sql.problem = error.message
            show(error.message, role: .error, now: now)
        }
    }

    static func rowCount(_ count: Int) -> String { "\(ValueText.count(count)) row\(count == 1 ? "" : "s")" }

    private static func verbWord(_ verb: String) -> String {
        switch verb {
        case "INSERT", "REPLACE": "Insert"
        case "UPDATE": "Update"
        case "DELETE": "Delete"
        default: "Change"
        }
    }

    private static func pastVerb(_ verb: String) -> String {
        switch verb {
        case "INSERT", "REPLACE": "Inserted"
        case "UPDATE": "Updated"
        case "DELETE": "Deleted"
        default: "Changed"
        }
    }
}
