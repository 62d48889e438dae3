import CardfileStore
import CardfileTerminal
import Foundation

/// The record editor: one app state, messages in (``update(_:)``), commands out, and the
/// whole screen drawn from the state (``view(into:)``).
///
/// Screens stack: the tables, a table's list (a live query on the view context), a record's
/// form (an editor context, a child of the view context). Only the loop's thread calls the
/// app; work off the loop posts to the ``Inbox``. Time comes from the injected clock, so
/// autosave and every other deadline run in tests without waiting.
public final class CardfileApp {
    /// How the app starts.
    public struct Options: Sendable {
        /// The table to open at once (the tables screen is skipped).
        public var table: String?
        /// Autosave's delay after the last edit; nil turns it off.
        public var autosave: Duration?
        /// The theme's name, for `:theme` completion and the status bar.
        public var themeName: String
        /// Names `:theme` can switch to.
        public var themes: [String]
        /// Loads a theme by name (`:theme`); returns the theme or a message.
        public var loadTheme: @Sendable (String) -> Result<Theme, ThemeProblem>
        /// The folder relative file names of `:import` and `:export` start from (and Tab
        /// completes in); nil: the current directory.
        public var workingFolder: String?
        /// The shell command that edits a field's text (Ctrl-O): see
        /// ``ExternalEdit/command(environment:)``.
        public var editor: String
        /// Where column choices are remembered (see ``ColumnMemory``); nil remembers nothing.
        public var stateFolder: String?

        public init(
            table: String? = nil, autosave: Duration? = .seconds(2), themeName: String = "default", themes: [String] = [],
            loadTheme: @escaping @Sendable (String) -> Result<Theme, ThemeProblem> = { _ in .success(Theme.default) },
            workingFolder: String? = nil, editor: String = "vi", stateFolder: String? = nil
        ) {
            self.stateFolder = stateFolder
            self.workingFolder = workingFolder
            self.editor = editor
            self.table = table
            self.autosave = autosave
            self.themeName = themeName
            self.themes = themes
            self.loadTheme = loadTheme
        }
    }

    let container: Container
    let view: ObjectContext
    let clock: AppClock
    let inbox: Inbox
    var options: Options
    var size: Size

    /// The screens, bottom first; the top one has the keys unless an overlay covers it.
    var screens: ScreenStack
    var overlay: Overlay?
    /// What the message line says; every one set is kept in ``messages`` too (so a notice is
    /// set whole, never changed in place).
    var notice: Notice? {
        didSet {
            guard let notice else { return }
            messages.note(notice.text, role: notice.role, at: clock.wallTime)
        }
    }
    /// The messages shown so far (`:messages`).
    var messages = MessageLog()
    public internal(set) var isRunning = true
    private var countToken = 0
    /// The command line between uses: its history.
    var savedPrompt = CommandPromptState()
    /// Asks the store, every ``pollInterval`` and off the loop, whether another process
    /// committed or the file was replaced, and merges what it finds.
    let outsideWatch: OutsideWatch
    /// Work sent off the loop (the check, labels, the columns file) until its result is taken.
    let errands: Errands
    /// The column choices remembered for this database's tables, read once at the start and
    /// kept as the person changes them (the file is written off the loop).
    var columnChoices: [String: ColumnChoice]
    /// The import or export running in the background, and how far it has come.
    var transfer: RunningTransfer?
    /// The last finished import's or export's report (R or `:report` shows it).
    var transferReport: TextPanel?
    /// The bulk edit running off the loop (one at a time).
    var bulk: RunningBulk?
    /// What Alt-U and Alt-R undo and redo in each table's list.
    var bulkHistory = BulkHistory()
    /// The last search (`f`, `:find`), which `n` and `N` repeat.
    var lastSearch: String?
    /// What happened to the database file, once the poll noticed it was replaced or deleted:
    /// from then on nothing is saved through its path and `:saveas` keeps the work.
    var fileGone: FileGone?
    /// The server was found unreachable and the person was told (once per outage: the status
    /// bar says it for as long as it lasts).
    var toldServerLost = false
    /// The forms' change tokens when `:saveas` last wrote a copy: quitting asks nothing while
    /// they are unchanged.
    var copiedAtTokens: [UInt64]?
    /// The last single click, for telling a double click.
    var lastClick: (position: Point, time: ContinuousClock.Instant)?
    /// The SQL screen's text when it was left, given back when it opens again.
    var lastStatement = ""

    /// A line for the message row: what just happened or went wrong.
    struct Notice {
        let text: String
        let role: Role
        let expires: ContinuousClock.Instant?
        /// Says a save did not happen (busy, refused): the next save that succeeds clears it,
        /// quiet autosaves included, so it never outlives the `saved` beside it.
        var aboutAFailedSave = false
        /// Says the list waits for its sort to make a jump: it goes when the jump is made.
        var aboutAWaitingJump = false
        /// The screen it is about (``ScreenStack/topNumber`` when it was shown): it goes when
        /// that screen is left or covered. Nil: about the database or the app, it stays.
        var screen: Int?

        /// A result or an error (a save, a transfer's end, a refusal): a passing note does
        /// not take its place while it shows.
        var isAResult: Bool { [.error, .warning, .success].contains(role) }
    }

    /// How long a notice stays.
    static let noticeTime: Duration = .seconds(5)
    /// How often the loop asks whether another process committed (a few µs each time), so
    /// another program's change is on screen within a quarter of a second.
    static let pollInterval: Duration = .milliseconds(50)
    /// The shortest time between two refreshes of the list caused by changes.
    static let refreshInterval: Duration = .milliseconds(50)

    /// Opens the app on `container`.
    /// - Throws: ``StoreError/noSuchTable(_:)`` when `options.table` names no table.
    public init(container: Container, options: Options, size: Size, clock: AppClock, inbox: Inbox) throws(StoreError) {
        self.container = container
        self.view = container.viewContext
        self.clock = clock
        self.inbox = inbox
        self.options = options
        self.size = size
        let errands = Errands(inbox: inbox)
        self.errands = errands
        self.outsideWatch = OutsideWatch(container: container, view: container.viewContext, errands: errands,
                                         interval: Self.pollInterval, firstCheck: clock.now + Self.pollInterval)
        let choices = ColumnMemory(folder: options.stateFolder).choices(database: container.path)
        self.columnChoices = choices
        // A save from the loop waits tens of milliseconds for a lock, never seconds: a busy
        // database is retried later, with every edit kept.
        view.saveBusyTimeout = .milliseconds(50)
        let all = container.schema.tables
        let first: TableSchema? = if let name = options.table { container.schema.table(named: name) } else { all.count == 1 ? all[0] : nil }
        if let name = options.table, first == nil { throw StoreError.noSuchTable(name) }
        if let first {
            screens = ScreenStack(.list(try Self.makeList(first, context: view, choice: choices[first.name], size: size, inbox: inbox)))
        } else {
            screens = ScreenStack(.tables(TablesScreen(tables: all)))
            countRows()
        }
    }

    /// The tables screen, wherever it stands in the stack.
    var tables: TablesScreen? { screens.tables }
    /// The list on screen (see ``ScreenStack/list``).
    var list: ListScreen? { screens.list }
    /// The form on top.
    var form: FormScreen? { screens.form }
    /// The field a top picker chooses a record for.
    var picking: (field: String, column: String)? { screens.picking }

    // MARK: - Messages

    /// Handles one message; returns what the loop must do. `hits` is what the last frame
    /// drew where (``render(into:)``): a click acts on what the person saw.
    public func update(_ message: Message, hits: HitMap = HitMap()) -> [AppCommand] {
        defer { forgetMessagesOfScreensLeft() }
        return receive(message, hits: hits)
    }

    private func receive(_ message: Message, hits: HitMap) -> [AppCommand] {
        let now = clock.now
        switch message {
        case .event(let event):
            return handle(event, hits: hits, now: now)
        case .rowCount(let table, let count, let token):
            if token == countToken { screens.updateTables { $0.counts[table] = count } }
            return []
        case .transfer(let update):
            return receive(update, now: now)
        case .externalEdit(let request, let outcome):
            finishExternalEdit(request, outcome, now: now)
            return []
        case .errand(let result):
            // (Tests run a second app on one inbox: another app's results are not ours.)
            guard result.errands === errands else { return [] }
            errands.delivered()
            switch result.kind {
            case .outside(let report): receive(report, now: now)
            case .label(let form, let field, let value, let label):
                screens.forms.first { $0.session.editor.identity == form }?.take(label, for: field, lookedUpFor: value)
            case .columnsNotRemembered(let why):
                show("The column choice holds for now but could not be remembered: \(why)", role: .warning, now: now)
            case .marked(let marks, let count, let token):
                take(markCount: count, for: marks, token: token)
            case .statistics(let table, let column, let scope, let fingerprint, let result):
                show(statistics: result, table: table, column: column, scope: scope, fingerprint: fingerprint, now: now)
            case .frequencies(let table, let column, let scope, let fingerprint, let result):
                show(frequencies: result, table: table, column: column, scope: scope, fingerprint: fingerprint, now: now)
            case .distinctValues(let table, let column, let count):
                take(distinctValues: count, table: table, column: column)
            case .markedRecords(let columns, let json, let rows):
                return copy(marked: rows, columns: columns, json: json, now: now)
            case .tableReport(let result):
                show(report: result, now: now)
            case .bulkProgress(let read):
                bulk?.read = read
            case .bulkDone(let request, let result):
                finish(request, result, now: now)
            case .statement(let result):
                take(result, now: now)
            case .statementWritten(let statement, let result):
                take(written: statement, result, now: now)
            case .indexCreated(let table, let column, let result, let took):
                finishIndex(table: table, column: column, result, took: took, now: now)
            case .historyNotKept(let why):
                show("The statement ran, but could not be kept in the SQL history: \(why)", role: .warning, now: now)
            }
            return []
        }
    }

    /// Runs what is due: expired notices, the end of the wait for a stopped import when
    /// quitting, the check for other processes' commits (started off the loop), autosave,
    /// live query refreshes, and the label lookups a form wants (off the loop). Call after
    /// every message and whenever ``nextDeadline`` passes.
    public func tick() -> [AppCommand] {
        let now = clock.now
        if let notice, let expires = notice.expires, now >= expires { self.notice = nil }
        if let quitting = transfer?.quitting, now >= quitting.deadline {
            // It did not stop in time (a batch stuck behind another program's lock): quit
            // anyway; SQLite rolls its open batch back. (A form may still ask about its edits.)
            let activity = transfer?.job.activity ?? ""
            transfer = nil
            show("\(activity.capitalizedFirst) did not stop within \(Int(Self.transferStopWait.seconds)) s; quitting without waiting.", role: .warning, now: now)
            return quit(force: quitting.force, now: now)
        }
        outsideWatch.checkIfDue(now: now)
        if let form, form.session.isDue(now: now) {
            save(form, now: now, quietly: true)
        }
        if let list {
            do {
                // Said where the changes are: on the list itself, not over a form (the form
                // says what happened to its own record).
                // A result still on the line (a save, an export, an error) keeps its time: the
                // rows on screen show the changes anyway.
                if let change = try list.live.update(now: now), change.includesOutsideChanges, form == nil, !(notice?.isAResult ?? false),
                   Self.recordsChanged(change) > 0 || container.liveRefresh(of: list.table.name) != .polled {
                    // (A poll looks again whenever any transaction wrote, this editor's rolled-back
                    // rehearsals too: one that finds nothing changed on screen says nothing.)
                    show(Self.outsideChangeSentence(change), role: .accent, now: now)
                }
            } catch {
                // (An unreachable server is said once, and by the status bar while it lasts.)
                if case .serverUnreachable = error {} else { show(error.message, role: .error, now: now) }
            }
            if notice?.aboutAWaitingJump == true, !list.live.isWaitingToJump { notice = nil }
            list.noteShownWidths()
            refreshMarks(of: list)
        }
        lookUpLabels()
        // A change was saved but its history was not kept (the journal's disk full, the
        // journal taken off the server): said once, over nothing that must stay.
        if noticeIsPassing, let problem = container.history?.takeProblem() {
            show("Saved, but not kept in the history: " + problem, role: .warning, now: now)
        }
        return []
    }

    /// Takes what the check of the file found (``OutsideWatch``): a merged commit reaches the
    /// open forms (the list refreshes by itself), a file gone is said until `:saveas`.
    func receive(_ report: OutsideReport, now: ContinuousClock.Instant) {
        switch report {
        case .fileGone(let gone):
            guard fileGone == nil else { return }
            fileGone = gone
            notice = Notice(text: Self.fileGoneNotice(gone), role: .error, expires: nil)
        case .changed:
            guard fileGone == nil else { return }
            followSchema()
            let news = formsFollowTheirSource()
            if let news {
                let role: Role = if case .deleted = news { .conflict } else { .accent }
                show(news.sentence, role: role, now: now)
            }
            if toldServerLost, !container.isServerUnreachable {
                // (The first check that answers after an outage reads everything again.)
                toldServerLost = false
                screens.form?.session.serverAnswers(now: now)
                // (Not over a notice that stays until acted on: a save in doubt says more.)
                if news == nil, noticeIsPassing {
                    show("The server answers again: what it holds now is shown.", role: .success, now: now)
                }
            }
        case .failed(let error):
            guard fileGone == nil else { return }
            if case .serverUnreachable(let server, let reason) = error {
                guard !toldServerLost else { return }
                toldServerLost = true
                // (The status bar says it too: a notice that stays until acted on stays.)
                if noticeIsPassing {
                    show("The server cannot be reached; trying again (\(server): \(reason)).", role: .error, now: now)
                }
                return
            }
            show(error.message, role: .error, now: now)
        }
    }

    /// True when the message line holds nothing, or a notice that goes by itself: news from
    /// the background may replace it, but not one that stays until acted on.
    var noticeIsPassing: Bool { notice.map { $0.expires != nil } ?? true }

    /// The tables screen lists the tables as the store now knows them (a statement here or
    /// another program made or dropped some), counting them when it is on top.
    func followSchema() {
        let now = container.schema.tables
        guard let tables, tables.tables.map(\.name) != now.map(\.name) else { return }
        screens.updateTables { $0.setTables(now) }
        if case .tables = screens.top { countRows() }
    }

    /// A commit not made through the forms' own contexts (another program's, a bulk edit's)
    /// reaches every open form: each takes the stored values of the fields it has not edited
    /// and marks the edited ones changed elsewhere. Returns what happened to the form on top.
    func formsFollowTheirSource() -> FormScreen.SourceNews? {
        let news = form?.followSource()
        for waiting in screens.forms.dropFirst(form == nil ? 0 : 1) { waiting.followSource() }
        return news
    }

    /// Waits, at most `timeout`, for the work already sent off the loop to end: call it when
    /// the loop has ended, so a column choice made just before quitting reaches its file.
    public func finishErrands(timeout: Duration = .seconds(2)) {
        let done = DispatchSemaphore(value: 0)
        errands.queue.async { done.signal() }
        _ = done.wait(timeout: .now() + timeout.seconds)
    }

    /// Blocks until the work the app sent off the loop (the check of the file, labels, the
    /// columns file) has posted its results to the inbox (tests and benchmarks: the loop never
    /// waits). Returns false when none runs and no result waits in the inbox: then the app
    /// has seen all it found.
    public func waitForErrands() -> Bool { errands.waitUntilReported() }

    /// True while a bulk edit (`:set`, `:delete`, Alt-U, Alt-R) runs off the loop.
    public var isRunningABulkEdit: Bool { bulk != nil }

    /// True while the list on screen waits for the first page of a new order, read in the
    /// background (the screen keeps the old rows meanwhile).
    public var isAwaitingAWindow: Bool { list?.live.isAwaitingFirstWindow ?? false }

    /// The earliest time ``tick()`` has work: the loop waits for input until then.
    public var nextDeadline: ContinuousClock.Instant? {
        [form?.session.deadline, list?.live.nextDeadline, notice?.expires, outsideWatch.nextCheck, transfer?.quitting?.deadline].compactMap { $0 }.min()
    }

    /// Puts `text` on the message line for a few seconds. A hint or a note is about the screen
    /// on top: leaving that screen, or opening another over it, takes it away. An error stays
    /// its time wherever the person goes (it may be about the database, not the screen).
    func show(_ text: String, role: Role = .text, now: ContinuousClock.Instant, aboutAFailedSave: Bool = false, aboutAWaitingJump: Bool = false) {
        notice = Notice(text: text, role: role, expires: now + Self.noticeTime, aboutAFailedSave: aboutAFailedSave,
                        aboutAWaitingJump: aboutAWaitingJump, screen: role == .error ? nil : screens.topNumber)
    }

    /// How many records on screen a refresh added, removed, changed or moved.
    static func recordsChanged(_ change: WindowChange) -> Int {
        Set(change.inserted + change.deleted + change.updated + change.moved).count
    }

    /// What the list says when a refresh brought another program's changes.
    static func outsideChangeSentence(_ change: WindowChange) -> String {
        let rows = recordsChanged(change)
        return rows == 0 ? "Outside changes arrived." : "Outside changes arrived: \(rows) record\(rows == 1 ? "" : "s") on screen changed."
    }

    /// Drops a message about a screen that is no longer on top (see ``Notice/screen``).
    func forgetMessagesOfScreensLeft() {
        if let screen = notice?.screen, screen != screens.topNumber { notice = nil }
    }

    // MARK: - Screens

    /// Counts the tables' rows again for the tables screen (at start, and on coming back to it).
    func countRows() {
        countToken += 1
        let token = countToken
        let tables = container.schema.tables
        screens.updateTables { $0.counts = [:] }
        // Counted off the loop: a big table must not hold up the screen.
        let context = container.newBackgroundContext(name: "counts")
        let inbox = self.inbox
        context.perform { context in
            for table in tables {
                let count = (try? context.count(for: FetchRequest(table: table.name))) ?? 0
                inbox.post(.rowCount(table: table.name, count: count, token: token))
            }
        }
    }

    /// Opens `table`'s list over the top screen.
    func openList(_ table: TableSchema) throws(StoreError) {
        screens.push(.list(try makeList(table)))
    }

    /// A live list of `table` on the view context, with the columns remembered for it.
    func makeList(_ table: TableSchema) throws(StoreError) -> ListScreen {
        try Self.makeList(table, context: view, choice: columnChoices[table.name], size: size, inbox: inbox)
    }

    private static func makeList(
        _ table: TableSchema, context: ObjectContext, choice: ColumnChoice?, size: Size, inbox: Inbox
    ) throws(StoreError) -> ListScreen {
        let list = try ListScreen(context: context, table: table, height: listHeight(for: size), refreshInterval: refreshInterval,
                                  choice: choice, wake: { inbox.poke() })
        list.areaWidth = size.width
        return list
    }

    /// Rows the list shows (and lines a form's fields have): the screen less the header or
    /// title, the status bar and the message line.
    var listHeight: Int { Self.listHeight(for: size) }

    static func listHeight(for size: Size) -> Int { max(1, size.height - 3) }

    /// Opens the form of `id` (nil: a new record) over the list.
    func openForm(_ id: ObjectID?, now: ContinuousClock.Instant) {
        guard let list else { return }
        if let query = list.query {
            // A result's row is a record of its table, or shown as it is, read-only.
            if let refusal = Self.refusal(id == nil ? .insert : .update, inResultOf: query) { return show(refusal, role: .warning, now: now) }
            guard let id, let record = container.recordID(of: id, in: query), let table = container.schema.table(named: record.table) else {
                // (Its row read in a form, as it is: a long value shown whole.)
                if let id { openForm(id, table: list.table, now: now, readOnly: query.readOnlyReason ?? "a statement's result") }
                return
            }
            return openForm(record, table: table, now: now)
        }
        openForm(id, table: list.table, now: now)
    }

    /// Why a change of `kind` cannot be made in the list of a statement's result; nil for
    /// the update of a record (its form edits it).
    static func refusal(_ kind: ViewWrites.Kind, inResultOf query: QueryResult) -> String? {
        if let reason = query.readOnlyReason { return kind == .update ? nil : "Read-only: \(reason)." }
        guard kind != .update, let records = query.records else { return nil }
        return "These rows are records of \(records.table): Enter opens one's form; records are added and deleted in its own list, or with SQL."
    }

    /// Opens the form of `id` in `table` (an editor context, a child of the view context);
    /// `readOnly` says why it shows the record without letting it be changed.
    func openForm(_ id: ObjectID?, table: TableSchema, now: ContinuousClock.Instant, readOnly: String? = nil) {
        if id == nil, let readOnlyReason {
            return show("Read-only: \(readOnlyReason). No record can be added.", role: .warning, now: now)
        }
        if id == nil, let refusal = Self.refusal(.insert, in: table) {
            return show(refusal, role: .warning, now: now)
        }
        let editor = container.editorContext(parent: view, name: "form")
        if let id {
            // A record that cannot be read (a rollback-journal file locked by another program's
            // commit) is not shown as a form of empty fields.
            // The read may have waited out the busy timeout: the notice lasts from now.
            do { _ = try editor.record(for: id) } catch {
                return show(error.message, role: .error, now: clock.now)
            }
        }
        let session = EditSession(editor: editor, table: table, id: id, autosaveDelay: options.autosave)
        let tableReason = readOnly ?? (id == nil ? nil : Self.readOnlyReason(of: table))
        let form = FormScreen(session: session, readOnly: readOnlyReason ?? tableReason, schema: container.schema, areaWidth: size.width)
        form.visibleHeight = listHeight
        screens.push(.form(form))
    }

    /// Why the records of `table` cannot be changed, in words (for the status bar and a
    /// form); nil when they can, or when only some fields or kinds of change are refused.
    static func readOnlyReason(of table: TableSchema) -> String? {
        if table.source != nil { return "a statement's result" }
        if let reason = table.readOnlyReason { return reason }
        if !table.isIdentifiable { return "no key" }
        if table.view?.update == ViewWrites.Updates.none { return "a view" }
        return nil
    }

    /// Why a change of `kind` cannot be made to `table`'s records, as a sentence; nil when it can.
    static func refusal(_ kind: ViewWrites.Kind, in table: TableSchema) -> String? {
        if let reason = table.readOnlyReason { return "\(table.name) cannot be changed here: \(reason)." }
        if !table.isIdentifiable { return StoreError.tableNotEditable(table.name, isView: table.isView).message }
        if let view = table.view, !view.allows(kind) { return StoreError.viewNotWritable(view: table.name, kind: kind).message }
        return nil
    }

    /// Why what is on screen cannot be changed: the form's reason (the database's or its
    /// table's), else the list's.
    var shownReadOnlyReason: String? {
        if let form { return form.readOnly }
        if let query = list?.query { return readOnlyReason ?? query.readOnlyReason }
        return readOnlyReason ?? list.flatMap { Self.readOnlyReason(of: $0.table) }
    }

    /// Why nothing can be edited, in words; nil when the database can be written.
    var readOnlyReason: String? {
        switch container.readOnlyReason {
        case .requested?: return "opened with --read-only"
        case .fileNotWritable?: return "the file cannot be written"
        case .snapshotInReadOnlyFolder?: return "a snapshot, the folder is read-only"
        case nil: return nil
        }
    }
}
