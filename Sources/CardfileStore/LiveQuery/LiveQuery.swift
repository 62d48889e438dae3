import Foundation
import GRDB

/// A windowed, sorted, filtered list of a table's rows that keeps itself up to date.
///
/// It never loads the whole table. The rows on screen (the *window*) are fetched on demand:
/// - when an index serves the order (the primary key order always does), by keyset: "the
///   rows after this key", which costs the same anywhere in the table; a positional index of
///   every n-th key, built in the background with the count, makes "row N" a seek too;
/// - when no index serves it, the first page comes at once from a top-N query, SQLite sorts
///   the matching rows' keys once in the background (``activity`` reports progress), and
///   windows are then read by key from that list.
///
/// It stays live: commits that touch the table (any context, batch operations, imports,
/// other processes once ``Container/checkForExternalChanges()`` noticed them) and changes in
/// its context mark it dirty; ``update(now:)`` then re-runs the window, at most once per
/// ``minimumRefreshInterval`` (the last change is always reflected), and reports a
/// ``WindowChange``. The cursor rules are the same whether an index serves the order or not:
/// the selected row keeps its screen line while it exists and matches; when it is gone, the
/// row that now sorts right after its old sort key takes its place and line (the one before
/// when none follows); the ends of the result clamp the window. Rows inserted
/// above the window do not scroll what is shown.
///
/// Unsaved changes of the context are shown marked (see ``LiveRow/status``), not hidden:
/// edited and deleted rows in place, inserted ones after the stored rows.
///
/// A live query belongs to one thread (the UI loop): call it only there. Its `wake` closure is
/// called from other threads when ``update(now:)`` has work; time is passed in, so tests can
/// drive it with a virtual clock.
public final class LiveQuery {
    public let context: ObjectContext
    public private(set) var spec: LiveQuerySpec
    public internal(set) var window: LiveWindow {
        didSet { windowVersion &+= 1 }
    }
    /// Counts the windows installed: a reader that remembers it learns in O(1) whether the
    /// window may have changed since (equal windows may count twice; a changed one always does).
    public private(set) var windowVersion: UInt64 = 0
    /// Counts the times the query read its data again because something changed (a save here,
    /// another program's commit), whether or not the rows on screen changed: what depends on
    /// rows off screen (a count of marks) watches this.
    public private(set) var refreshes: UInt64 = 0
    /// Rows in the window.
    public private(set) var height: Int
    /// The shortest time between two refreshes caused by data changes.
    public var minimumRefreshInterval: Duration
    /// How many data refreshes ran (each one re-reads the window).
    public private(set) var refreshCount = 0

    let core: StoreCore
    var entity: Entity
    var query: OrderedQuery
    /// True when an index serves the order: the window is walked by key.
    var walksByKey = true
    var positions: PositionIndex?
    var sorted: SortedKeys?
    /// Indexes of ``sorted`` whose rows were found gone (deleted, or no longer matching) since
    /// the sort: positions and the count skip them until the next sort.
    var sortedGone: Set<Int> = [] {
        didSet { sortedGoneInOrder = nil }
    }
    /// ``sortedGone`` in ascending order, built when first needed.
    var sortedGoneInOrder: [Int]?
    /// On the sorted path, a selected row not yet in the sorted keys (an insert just saved):
    /// selected again once the new order has it, unless the person moved meanwhile.
    var awaitedSelection: (id: ObjectID, line: Int, replacement: ObjectID?)?
    /// On the sorted path, a selection that vanished before the new order arrived: its old
    /// sort key and line, and the row standing in for it meanwhile.
    var vanishedSelection: (key: [Value], line: Int, replacement: ObjectID)?
    /// On the sorted path, the line a selection had before a data change, and the line the
    /// window put it on until the new order arrives (near the end of the result, the old keys
    /// with their rows gone can shift it): the new order puts it back on its own line, unless
    /// the person moved meanwhile.
    var keptLine: (id: ObjectID, line: Int, meanwhile: Int?)?
    /// Bumped when the data changes; background results built before are stale.
    var dataVersion: UInt64 = 0
    /// Bumped when the spec changes; background results built before are discarded.
    var specVersion: UInt64 = 0
    /// Versions the current positions or sorted keys were built at.
    var builtAt: (spec: UInt64, data: UInt64)?
    var overlay = PendingOverlay()
    /// Sort keys of the window's stored rows (nil for pending inserts), aligned with its rows.
    var windowKeys: [[Value]?] = []
    private var lastToken: UInt64 = 0
    private var lastRefresh: ContinuousClock.Instant?
    private var refreshDue = false
    /// The due refresh will read another process's commit.
    private var outsideDue = false
    private var backgroundWanted = true
    let worker: LiveQueryWorker
    /// Whether a new order no index serves reads its first page in the background (the UI
    /// loop: a top-N query over a million rows takes tens of milliseconds) instead of at once.
    /// Until the page arrives, the window keeps what it showed and ``isAwaitingFirstWindow``
    /// is true; a move past the window, a resize or a change meanwhile reads the page at once
    /// (as without this), so the window never mixes the old order with the new.
    public var firstWindowInBackground = false
    /// Set while the first page of a new order is awaited from the background: whether it
    /// keeps the selected row (when that row is on it). Nil when no page is awaited.
    var firstWindowKeepsSelection: Bool?

    /// A table of at least this many rows is large: sorted or filtered by a column no index
    /// serves, it gets ``indexAdvice``. Zero gives none.
    public var indexAdviceRows = 50_000

    /// The column whose index would make this list fast, when its table is large and SQLite
    /// sorts or scans it for the list's order or filter; nil otherwise. Found at each new
    /// order or filter.
    public private(set) var indexAdvice: IndexAdvice?
    /// Whether the table was found large (by ``indexAdviceRows``), asked once per table: not
    /// at each key typed into a filter.
    private var largeTable: (name: String, rows: Int, large: Bool)?

    /// True while the first page of a new order is read in the background.
    public var isAwaitingFirstWindow: Bool { firstWindowKeepsSelection != nil }

    /// A jump asked for while the order is still being sorted in the background, made once
    /// the sort arrives (before it, positions past the window are not known). Another move
    /// or a new order drops it.
    enum PendingJump: Equatable {
        case row(Int)
        case end
    }
    var pendingJump: PendingJump?

    /// True while a jump waits for the background sort (see ``jump(toRow:)``).
    public var isWaitingToJump: Bool { pendingJump != nil }

    /// Opens a live query on `context`'s table and loads its first window.
    /// - Parameters:
    ///   - height: rows in the window (the list's visible lines).
    ///   - firstWindowInBackground: see ``firstWindowInBackground``; given here, it holds for
    ///     the first window too (a query's result, whose every read runs the query).
    ///   - wake: called from any thread when ``update(now:)`` has something to do; the UI loop
    ///     posts a message to itself from it.
    /// - Throws: ``StoreError/noSuchTable(_:)``, ``StoreError/noSuchField(table:field:)``,
    ///   ``StoreError/invalidFilter(message:offset:)``.
    public init(
        context: ObjectContext, spec: LiveQuerySpec, height: Int,
        minimumRefreshInterval: Duration = .milliseconds(250), firstWindowInBackground: Bool = false,
        wake: @escaping @Sendable () -> Void = {}
    ) throws(StoreError) {
        self.firstWindowInBackground = firstWindowInBackground
        self.context = context
        self.core = context.core
        self.spec = spec
        self.height = max(1, height)
        self.minimumRefreshInterval = minimumRefreshInterval
        let entity = try core.entity(spec.table)
        self.entity = entity
        self.query = try Self.makeQuery(entity: entity, spec: spec)
        self.window = .empty(columns: entity.table.columns.map(\.name))
        self.worker = LiveQueryWorker(table: entity.name, watching: entity.watchedTables, wake: wake)
        core.bus.register(worker)
        lastToken = context.changeToken
        try start(keepingSelection: false)
    }

    deinit {
        worker.cancel()
    }

    /// What runs in the background now.
    public var activity: LiveQueryActivity { worker.activity }

    private static func makeQuery(entity: Entity, spec: LiveQuerySpec) throws(StoreError) -> OrderedQuery {
        let predicate = try predicate(for: spec.filter, entity: entity, spec: spec)
        return try OrderedQuery(entity: entity, sort: spec.sort, filter: predicate)
    }

    // MARK: - Changing what is shown

    /// Shows another order, filter or table. The selected row stays selected when it is still
    /// in the result. For an order no index serves, the first page of the new result shows at
    /// once (from a top-N query), keeping the selected row when it is on that page; the rest of
    /// the order is sorted in the background.
    public func setSpec(_ newSpec: LiveQuerySpec) throws(StoreError) {
        let newEntity = try core.entity(newSpec.table)
        let newQuery = try Self.makeQuery(entity: newEntity, spec: newSpec)
        let sameTable = newEntity.name == entity.name
        spec = newSpec
        entity = newEntity
        query = newQuery
        if !sameTable { window = .empty(columns: newEntity.table.columns.map(\.name)) }
        try start(keepingSelection: sameTable)
    }

    /// Changes the number of rows shown, keeping the first row.
    public func setHeight(_ newHeight: Int) throws(StoreError) {
        try readAwaitedFirstPageNow()
        height = max(1, newHeight)
        // The selected row stays selected and on screen: a window that shrinks above it starts
        // lower, so the row is its last line (it once fell back to the window's first row).
        var first = window.firstRow
        if let line = window.selectedLine, line >= height { first += line - (height - 1) }
        try show(firstRow: first, selecting: window.selection.map { .id($0) } ?? .line(0))
    }

    private func start(keepingSelection: Bool) throws(StoreError) {
        specVersion += 1
        pendingJump = nil
        positions = nil
        sorted = nil
        sortedGone = []
        vanishedSelection = nil
        keptLine = nil
        awaitedSelection = nil
        builtAt = nil
        worker.cancel()
        let pending = try context.pendingRows(for: query.entity)
        let predicate = spec.filter.isEmpty ? nil : try Self.predicate(for: spec.filter, entity: entity, spec: spec)
        try read { db in
            walksByKey = try query.isServedByIndex(db)
            overlay = try PendingOverlay.load(pending: pending, query: query, db: db)
            // (Advice on SQLite's indexes; another engine's planner is its own.)
            guard let sqlite = db as? SQLiteSession else { indexAdvice = nil; return }
            indexAdvice = try IndexAdvice.find(for: query, spec: spec, predicate: predicate, walksByKey: walksByKey, db: sqlite.db) { db in
                if let known = largeTable, known.name == entity.name, known.rows == indexAdviceRows { return known.large }
                let large = try IndexAdvice.hasRows(indexAdviceRows, table: query.table, db: db)
                largeTable = (entity.name, indexAdviceRows, large)
                return large
            }
        }
        backgroundWanted = true
        if walksByKey {
            if keepingSelection, let selection = window.selection, let line = window.selectedLine {
                // The window's keys belong to the old order: only its IDs carry over.
                windowKeys = []
                try reanchor(on: selection, line: line, oldWindow: window, oldKeys: [])
            } else {
                try show(firstRow: 0, selecting: .line(0))
            }
        } else {
            // No index serves the order: SQLite's top-N sort (ORDER BY … LIMIT) gives the first
            // page at once, a fraction of a full sort; the sorted keys for scrolling and
            // positions follow in the background. The selected row stays selected when it is
            // on that page.
            let keep = keepingSelection ? window.selection : nil
            windowKeys = []
            if firstWindowInBackground {
                readFirstPageInBackground(keepingSelection: keepingSelection)
                return
            }
            let slice = try read { db in try keyedSlice(at: 0, db: db) }
            install(slice, selecting: keep.map { .id($0) } ?? .line(0))
        }
        scheduleBackground()
    }

    /// Starts the top-N query of the new order's first page on the worker; ``update(now:)``
    /// shows it, then the full sort starts.
    private func readFirstPageInBackground(keepingSelection: Bool) {
        firstWindowKeepsSelection = keepingSelection
        let page = query.page(from: nil, inclusive: true, limit: height, offset: 0)
        let (core, entity) = (self.core, self.entity)
        let stamp = specVersion
        worker.start(.sorting(fraction: nil)) { _, _ -> LiveQueryWorker.Result? in
            do {
                let rows: [[Value]] = try core.session(for: entity) { db -> [[Value]] in
                    try db.rows(page.sql, page.arguments)
                }
                return .firstPage(rows, stamp)
            } catch {
                return Self.failure(error, stamp: stamp, path: core.path)
            }
        }
    }

    /// Reads the awaited first page of a new order now, when one is awaited: what is about to
    /// read or move the window must start from the new order.
    func readAwaitedFirstPageNow() throws(StoreError) {
        guard firstWindowKeepsSelection != nil else { return }
        let slice = try read { db in try keyedSlice(at: 0, db: db) }
        installFirstPage(slice)
    }

    /// Shows the new order's first page, keeping the selected row when it is on it (the row
    /// selected now: a move made while the page was awaited counts).
    private func installFirstPage(_ slice: Slice) {
        let keep = firstWindowKeepsSelection == true ? window.selection : nil
        install(slice, selecting: keep.map { .id($0) } ?? .line(0))
    }

    // MARK: - Staying live

    /// Applies finished background work and, when the table or the context changed, re-runs
    /// the window (at most once per ``minimumRefreshInterval``, unless `immediately`: the
    /// caller knows a change just completed and wants it in this frame). Returns how the
    /// window changed, or nil when it did not.
    public func update(now: ContinuousClock.Instant, immediately: Bool = false) throws(StoreError) -> WindowChange? {
        let before = window
        var touched = false
        for result in worker.takeResults() {
            try apply(result)
            touched = true
        }
        let heard = worker.takeDirty()
        if heard.dirty { refreshDue = true }
        if heard.outside { outsideDue = true }
        let token = context.changeToken
        if token != lastToken {
            lastToken = token
            refreshDue = true
        }
        var readOutside = false
        if refreshDue, immediately || lastRefresh.map({ now >= $0 + minimumRefreshInterval }) ?? true {
            refreshDue = false
            readOutside = outsideDue
            outsideDue = false
            lastRefresh = now
            try refresh()
            refreshes &+= 1
            touched = true
        }
        scheduleBackground()
        // Most calls find nothing to do (the loop calls this on every wake-up): no diff then.
        guard touched else { return nil }
        var change = WindowChange.between(before, window)
        change.includesOutsideChanges = readOutside
        return change.isEmpty ? nil : change
    }

    /// When ``update(now:)`` must run again to reflect a change it deferred; nil when nothing
    /// waits.
    public var nextDeadline: ContinuousClock.Instant? {
        guard refreshDue else { return nil }
        return lastRefresh.map { $0 + minimumRefreshInterval }
    }

    /// Blocks until background work finished and applies it (tests and benchmarks; the UI
    /// loop never waits).
    public func waitForBackgroundWork() throws(StoreError) {
        repeat {
            while worker.isBusy { worker.waitUntilIdle() }
            for result in worker.takeResults() { try apply(result) }
            // A pass built on older data leaves another one wanted: run that one too. It may
            // finish before the check below, leaving its result queued: that counts as work
            // still to take (a full parallel test run once saw the list's count stay
            // approximate because the old check looked only at the running job).
            scheduleBackground()
        } while worker.hasPendingWork
    }

    /// Re-reads the window after the data changed.
    private func refresh() throws(StoreError) {
        try readAwaitedFirstPageNow()
        refreshCount += 1
        dataVersion += 1
        backgroundWanted = true
        // Rows that were unsaved inserts go by their permanent IDs once saved.
        let saved = worker.takePermanentIDs()
        if !saved.isEmpty {
            window = LiveWindow(
                rows: window.rows.map { row in saved[row.id].map { LiveRow(id: $0, values: row.values, status: row.status) } ?? row },
                firstRow: window.firstRow, count: window.count,
                selection: window.selection.map { saved[$0] ?? $0 }, columns: window.columns)
        }
        let old = window
        let oldKeys = windowKeys
        let pending = try context.pendingRows(for: query.entity)
        try read { db in overlay = try PendingOverlay.load(pending: pending, query: query, db: db) }
        if walksByKey {
            // The selection keeps its line; when it is scrolled out of view, the top row stays.
            let anchor = old.selection.flatMap { selection in old.selectedLine.map { (selection, $0) } }
                ?? old.rows.first.map { ($0.id, 0) }
            if let (id, line) = anchor {
                try reanchor(on: id, line: line, oldWindow: old, oldKeys: oldKeys)
            } else {
                try show(firstRow: 0, selecting: .line(0))
            }
        } else {
            // Values and deletions show at once; new order and new rows once re-sorted.
            try refreshSorted(old: old, oldKeys: oldKeys)
        }
    }

    private func apply(_ result: LiveQueryWorker.Result) throws(StoreError) {
        switch result {
        case .positions(let index, let stamp, let data):
            guard stamp == specVersion, walksByKey else { return }
            positions = index
            builtAt = (stamp, data)
            if data == dataVersion { backgroundWanted = false }
            try repositionWindow()
        case .sorted(let keys, let stamp, let data):
            guard stamp == specVersion, !walksByKey else { return }
            let old = window
            let oldKeys = windowKeys
            sorted = keys
            sortedGone = []
            builtAt = (stamp, data)
            if data == dataVersion { backgroundWanted = false }
            try reanchorSorted(old: old, oldKeys: oldKeys)
            if let waiting = pendingJump {
                pendingJump = nil
                switch waiting {
                case .row(let position): try jump(toRow: position)
                case .end: try jumpToEnd()
                }
            }
        case .firstPage(let rows, let stamp):
            guard stamp == specVersion, firstWindowKeepsSelection != nil else { return }
            installFirstPage(try read { db in try self.slice(fromStored: rows, first: 0, position: 0, db: db) })
        case .failed(let error, let stamp):
            guard stamp == specVersion else { return }
            pendingJump = nil
            if firstWindowKeepsSelection != nil {
                // The first page failed: the next update tries the full sort, which places
                // the window when it is done.
                firstWindowKeepsSelection = nil
            } else {
                backgroundWanted = false
            }
            throw error
        }
    }

    /// Starts the background pass the current state needs: positions and count for a keyed
    /// walk, the sorted keys otherwise. One pass at a time; a pass is not restarted by new
    /// changes (it would never finish under a stream of commits), the next one follows it.
    private func scheduleBackground() {
        guard backgroundWanted, !worker.isBusy else { return }
        backgroundWanted = false
        let query = self.query
        let (core, entity) = (self.core, self.entity)
        let stamp = specVersion
        let data = dataVersion
        let estimate = max(1, window.count.known)
        let keyed = walksByKey
        worker.start(keyed ? .counting(fraction: nil) : .sorting(fraction: nil)) { cancellation, progress in
            do {
                return try core.session(for: entity) { db -> LiveQueryWorker.Result in
                    let report = { (done: Int) in
                        let fraction = min(1, Double(done) / Double(estimate))
                        progress(keyed ? .counting(fraction: fraction) : .sorting(fraction: fraction))
                    }
                    if keyed {
                        return .positions(try PositionIndex.build(query, db: db, cancellation: cancellation, progress: report), stamp, data)
                    }
                    return .sorted(try SortedKeys.build(query, db: db, cancellation: cancellation, progress: report), stamp, data)
                }
            } catch is Cancellation.Stopped {
                return nil
            } catch let error as DatabaseError where error.resultCode == .SQLITE_INTERRUPT {
                return nil
            } catch {
                return Self.failure(error, stamp: stamp, path: core.path)
            }
        }
    }

    private static func failure(_ error: any Error, stamp: UInt64, path: String) -> LiveQueryWorker.Result {
        if let error = error as? StoreError { return .failed(error, stamp) }
        if let error = error as? DatabaseError { return .failed(.working(error, path: path), stamp) }
        return .failed(.database(code: -1, message: String(describing: error)), stamp)
    }

    /// Runs `body` in one read transaction, mapping errors.
    func read<T>(_ body: (any EngineSession) throws -> T) throws(StoreError) -> T {
        try storeErrors(path: core.path) { try core.session(for: entity, body) }
    }
}
