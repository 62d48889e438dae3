
/// Building windows: where rows come from, where the selection goes.
extension LiveQuery {
    /// Which row to select in a window being built. A window with rows always has a
    /// selection: the list's cursor.
    enum Selecting {
        case id(ObjectID)
        /// `id`, or when it is gone its nearest neighbour in `order` (after, then before).
        case idOrNeighbour(ObjectID, order: [ObjectID])
        case line(Int)
        case position(Int)
        case last
    }

    /// A window's rows with the sort keys of the stored ones.
    struct Slice {
        var rows: [LiveRow] = []
        var keys: [[Value]?] = []
        var first = 0
        /// True when the slice reaches the last row of the result.
        var reachesEnd = false

        mutating func append(stored row: [Value], query: OrderedQuery, overlay: PendingOverlay) {
            let id = query.objectID(of: row)
            rows.append(overlay.row(id: id, stored: Array(row[query.table.keyWidth...])))
            keys.append(query.key(of: row))
        }

        mutating func append(pending row: LiveRow) {
            rows.append(row)
            keys.append(nil)
        }
    }

    // MARK: - Installing a window

    /// Shows the window starting at position `firstRow` (clamped to the result).
    func show(firstRow: Int, selecting: Selecting) throws(StoreError) {
        try readAwaitedFirstPageNow()
        let slice: Slice = try read { db in
            walksByKey ? try keyedSlice(at: max(0, firstRow), db: db) : try sortedSlice(at: max(0, firstRow), db: db)
        }
        install(slice, selecting: selecting)
    }

    /// Shows the end of the result.
    func showEnd(selecting: Selecting) throws(StoreError) {
        try readAwaitedFirstPageNow()
        let slice: Slice = try read { db in
            walksByKey ? try keyedEnd(db: db) : try sortedSlice(at: Int.max / 2, db: db)
        }
        install(slice, selecting: selecting)
    }

    func install(_ slice: Slice, selecting: Selecting) {
        // A window read now answers for the new order: the one asked of the background is moot.
        firstWindowKeepsSelection = nil
        let selection: ObjectID?
        let rows = slice.rows
        switch selecting {
        case .id(let id):
            selection = rows.contains { $0.id == id } ? id : rows.first?.id
        case .idOrNeighbour(let id, let order):
            let shown = Set(rows.map(\.id))
            let index = order.firstIndex(of: id) ?? 0
            let candidates = [id] + order.dropFirst(index + 1) + order.prefix(index).reversed()
            selection = candidates.first(where: shown.contains) ?? rows.first?.id
        case .line(let line):
            selection = rows.isEmpty ? nil : rows[min(max(0, line), rows.count - 1)].id
        case .position(let position):
            selection = rows.isEmpty ? nil : rows[min(max(0, position - slice.first), rows.count - 1)].id
        case .last:
            selection = rows.last?.id
        }
        window = LiveWindow(rows: rows, firstRow: slice.first, count: count(for: slice), selection: selection, columns: window.columns)
        windowKeys = slice.keys
    }

    /// The count to show with `slice`.
    func count(for slice: Slice) -> RowCount {
        let pendingInserts = overlay.inserted.count
        let stored: Int?
        if walksByKey {
            stored = positions?.count
        } else {
            stored = sorted.map { $0.count - sortedGone.count }
        }
        if let stored, let builtAt {
            return builtAt.data == dataVersion ? .exact(stored + pendingInserts) : .approximately(stored + pendingInserts)
        }
        if slice.reachesEnd { return .exact(slice.first + slice.rows.count) }
        return .counting(atLeast: slice.first + slice.rows.count)
    }

    // MARK: - Walking by key

    func forward(from key: [Value]?, inclusive: Bool, limit: Int, offset: Int = 0, db: any EngineSession) throws -> [[Value]] {
        guard limit > 0 else { return [] }
        let page = query.page(from: key, inclusive: inclusive, limit: limit, offset: offset)
        return try db.rows(page.sql, page.arguments)
    }

    /// Up to `limit` rows just before `key` (the last rows when `key` is nil), in forward order.
    func backward(before key: [Value]?, limit: Int, db: any EngineSession) throws -> [[Value]] {
        guard limit > 0 else { return [] }
        let page = query.page(from: key, inclusive: false, backward: true, limit: limit)
        return try db.rows(page.sql, page.arguments).reversed()
    }

    /// The position of the row with `key` among the stored rows: a seek to the nearest
    /// checkpoint and a count of at most about one stride of rows; without checkpoints yet, a
    /// count from the start.
    func position(of key: [Value], db: any EngineSession) throws -> Int {
        let checkpoint: (position: Int, key: [Value])?
        if query.table.dialect.ordersAsSwiftDoes {
            checkpoint = positions?.checkpoint(atOrBefore: key, in: query)
        } else {
            // The engine's order is its own (a locale's collation, an enum's, an array's): the
            // engine says which checkpoints come before the key (a row from one and before
            // the key exists exactly when the checkpoint does). A binary search asked a dozen
            // checkpoints one round trip each, on the UI's loop.
            // Fifteen checkpoints are asked about in one statement, each a scalar subquery.
            checkpoint = try positions?.checkpoint(askingAtOnce: 15) { candidates in
                let probes = candidates.map { query.countBetween(from: $0, before: key, limit: 1) }
                let sql = "SELECT " + probes.map { "(\($0.sql))" }.joined(separator: ", ")
                let row = try db.firstRow(sql, probes.flatMap(\.arguments)) ?? []
                return candidates.indices.map { row.indices.contains($0) && (row[$0].wholeNumber ?? 0) > 0 }
            }
        }
        let between = query.countBetween(from: checkpoint?.key, before: key, limit: Int(Int32.max))
        let counted = try db.integer(between.sql, between.arguments) ?? 0
        return (checkpoint?.position ?? 0) + counted
    }

    /// The window starting at `position`, walking from the current window when it is close,
    /// else seeking the nearest checkpoint.
    func keyedSlice(at position: Int, db: any EngineSession) throws -> Slice {
        let current = window.firstRow
        let offsetInWindow = position - current
        var stored: [[Value]]
        var first = position
        if position == 0 {
            stored = try forward(from: nil, inclusive: true, limit: height, db: db)
        } else if offsetInWindow >= 0, offsetInWindow < windowKeys.count, let key = windowKeys[offsetInWindow] {
            stored = try forward(from: key, inclusive: true, limit: height, db: db)
        } else if offsetInWindow == windowKeys.count, let key = windowKeys.last ?? nil {
            stored = try forward(from: key, inclusive: false, limit: height, db: db)
        } else if offsetInWindow < 0, -offsetInWindow <= height, let key = windowKeys.first ?? nil {
            let before = try backward(before: key, limit: -offsetInWindow, db: db)
            first = current - before.count
            stored = before + (try forward(from: key, inclusive: true, limit: height - before.count, db: db))
        } else if let checkpoint = positions?.checkpoint(atOrBefore: position) {
            stored = try forward(from: checkpoint.key, inclusive: true, limit: height, offset: position - checkpoint.position, db: db)
        } else {
            stored = try forward(from: nil, inclusive: true, limit: height, offset: position, db: db)
        }
        return try slice(fromStored: stored, first: first, position: position, db: db)
    }

    /// The window made of `stored` (rows read from `position` on, the first of them at
    /// `first`), followed by unsaved inserts when the stored rows end within it.
    func slice(fromStored stored: [[Value]], first: Int, position: Int, db: any EngineSession) throws -> Slice {
        var slice = Slice()
        slice.first = first
        for row in stored { slice.append(stored: row, query: query, overlay: overlay) }
        if stored.count < height {
            // The stored rows ended: unsaved inserts follow them.
            let storedTotal = stored.isEmpty ? try storedCount(db: db) : first + stored.count
            let tailStart = max(0, position - storedTotal)
            if stored.isEmpty { slice.first = storedTotal + tailStart }
            for row in overlay.inserted.dropFirst(tailStart).prefix(height - stored.count) { slice.append(pending: row) }
            slice.reachesEnd = true
            if slice.rows.count < height, slice.first > 0 {
                return try keyedEnd(db: db)
            }
        }
        return slice
    }

    /// How many stored rows match: from the positions when they are current, else counted.
    func storedCount(db: any EngineSession) throws -> Int {
        if let positions, builtAt?.data == dataVersion { return positions.count }
        let count = query.count()
        return try db.integer(count.sql, count.arguments) ?? 0
    }

    /// The last `height` rows: stored ones read backwards from the end, then unsaved inserts.
    func keyedEnd(db: any EngineSession) throws -> Slice {
        let tail = Array(overlay.inserted.suffix(height))
        let stored = try backward(before: nil, limit: height - tail.count, db: db)
        var slice = Slice()
        slice.reachesEnd = true
        for row in stored { slice.append(stored: row, query: query, overlay: overlay) }
        for row in tail { slice.append(pending: row) }
        if let firstKey = stored.first.map(query.key(of:)) {
            slice.first = try position(of: firstKey, db: db)
        } else {
            slice.first = try storedCount(db: db) + overlay.inserted.count - tail.count
        }
        return slice
    }

    /// The window with the row of `key` at screen line `line` (or as near it as the ends of the
    /// result allow).
    func keyedSlice(around key: [Value], line: Int, db: any EngineSession) throws -> Slice {
        var before = try backward(before: key, limit: line, db: db)
        let from = try forward(from: key, inclusive: true, limit: height - before.count, db: db)
        var tail: [LiveRow] = []
        if before.count + from.count < height {
            tail = Array(overlay.inserted.prefix(height - before.count - from.count))
            if before.count == line, before.count + from.count + tail.count < height {
                before = try backward(before: key, limit: height - from.count - tail.count, db: db)
            }
        }
        var slice = Slice()
        for row in before + from { slice.append(stored: row, query: query, overlay: overlay) }
        for row in tail { slice.append(pending: row) }
        slice.reachesEnd = before.count + from.count + tail.count < height || !tail.isEmpty || from.count < height - before.count
        if before.count < line {
            slice.first = 0
        } else if let firstKey = (before + from).first.map(query.key(of:)) {
            slice.first = try position(of: firstKey, db: db)
        }
        return slice
    }

    /// Re-places the window after a change so that `id` (or, when it is gone or no longer
    /// matches, its nearest neighbour in the old order) is at screen line `line`.
    func reanchor(on id: ObjectID, line: Int, oldWindow: LiveWindow, oldKeys: [[Value]?]) throws(StoreError) {
        enum Anchor { case stored(ObjectID, [Value]); case pending(ObjectID); case none }
        let anchor: Anchor = try read { db in
            if id.isTemporary, overlay.inserted.contains(where: { $0.id == id }) { return .pending(id) }
            if !id.isTemporary {
                let lookup = query.row(id: id)
                if let row = try db.rows(lookup.sql, lookup.arguments).first {
                    return .stored(id, query.key(of: row))
                }
            }
            // Gone: the row that now sorts right after its old key (the one before when none
            // follows), as on the sorted path.
            let index = oldWindow.rows.firstIndex { $0.id == id } ?? 0
            if oldKeys.indices.contains(index), let oldKey = oldKeys[index] {
                if let next = try forward(from: oldKey, inclusive: false, limit: 1, db: db).first
                    ?? backward(before: oldKey, limit: 1, db: db).first {
                    return .stored(query.objectID(of: next), query.key(of: next))
                }
            }
            // No key to go by (an unsaved insert): the nearest surviving old neighbour.
            let candidates = Array(oldWindow.rows.indices.dropFirst(index + 1)) + Array((0..<index).reversed())
            let storedIDs = candidates.map { oldWindow.rows[$0].id }.filter { !$0.isTemporary }
            var survivors: [ObjectID: [Value]] = [:]
            if !storedIDs.isEmpty {
                let lookup = query.rows(ids: storedIDs)
                for row in try db.rows(lookup.sql, lookup.arguments) {
                    survivors[query.objectID(of: row)] = query.key(of: row)
                }
            }
            for candidate in candidates {
                let candidateID = oldWindow.rows[candidate].id
                if let key = survivors[candidateID] { return .stored(candidateID, key) }
                if candidateID.isTemporary, overlay.inserted.contains(where: { $0.id == candidateID }) { return .pending(candidateID) }
            }
            return .none
        }
        switch anchor {
        case .stored(let anchorID, let key):
            let slice = try read { db in try keyedSlice(around: key, line: line, db: db) }
            install(slice, selecting: .id(anchorID))
        case .pending(let anchorID):
            try showEnd(selecting: .id(anchorID))
        case .none:
            try show(firstRow: 0, selecting: .line(0))
        }
    }

    /// After new positions arrive: the same rows, at their exact positions.
    func repositionWindow() throws(StoreError) {
        guard let firstKey = windowKeys.first ?? nil else {
            window = LiveWindow(rows: window.rows, firstRow: window.firstRow, count: count(for: Slice()), selection: window.selection, columns: window.columns)
            return
        }
        let first = try read { db in try position(of: firstKey, db: db) }
        var slice = Slice()
        slice.rows = window.rows
        slice.keys = windowKeys
        slice.first = first
        window = LiveWindow(rows: window.rows, firstRow: first, count: count(for: slice), selection: window.selection, columns: window.columns)
    }

    // MARK: - Reading from the sorted keys

    /// One row of the sorted order: a stored row at its index in the sorted keys, or an unsaved
    /// insert at a virtual index past them.
    struct SortedEntry {
        let index: Int
        let stored: [Value]?
        let pending: LiveRow?
    }

    /// The sorted keys' indexes, then one virtual index per unsaved insert.
    var sortedEntryCount: Int { (sorted?.count ?? 0) + overlay.inserted.count }

    /// ``sortedGone`` in ascending order (cached until it changes).
    private var goneInOrder: [Int] {
        if let cached = sortedGoneInOrder { return cached }
        let ordered = sortedGone.sorted()
        sortedGoneInOrder = ordered
        return ordered
    }

    /// Where the entry at `index` stands now: rows found gone since the sort no longer count.
    func sortedPosition(ofIndex index: Int) -> Int {
        // Binary search: how many gone indexes lie below `index`.
        let gone = goneInOrder
        var low = 0
        var high = gone.count
        while low < high {
            let middle = (low + high) / 2
            if gone[middle] < index { low = middle + 1 } else { high = middle }
        }
        return index - low
    }

    /// The index of the entry now at `position` (clamped to the last entry).
    func sortedIndex(forPosition position: Int) -> Int {
        var index = max(0, position)
        for gone in goneInOrder {
            if gone <= index { index += 1 } else { break }
        }
        return min(index, max(0, sortedEntryCount - 1))
    }

    /// The index of `id` in the sorted order (a linear scan of the keys), nil when absent.
    func sortedIndex(of id: ObjectID) -> Int? {
        guard let sorted else { return nil }
        if id.isTemporary {
            return overlay.inserted.firstIndex { $0.id == id }.map { sorted.count + $0 }
        }
        return sorted.position(of: id)
    }

    /// Up to `limit` entries that still exist and match, walking from `start` forward or
    /// backward (results in forward order). Rows found gone are remembered, so positions and
    /// the count leave them out until the next sort.
    func sortedEntries(from start: Int, backward: Bool, limit: Int, db: any EngineSession) throws -> [SortedEntry] {
        guard let sorted, limit > 0 else { return [] }
        var found: [SortedEntry] = []
        var next = start
        // Batches grow when they keep finding gone rows, so a long run of deleted rows costs a
        // few queries, not one per window.
        var batch = limit + 16
        while found.count < limit, backward ? next >= 0 : next < sortedEntryCount {
            defer { batch = min(batch * 2, 1 << 14) }
            let range = backward ? max(0, next - batch + 1)..<(next + 1) : next..<min(sortedEntryCount, next + batch)
            next = backward ? range.lowerBound - 1 : range.upperBound
            let storedRange = range.clamped(to: 0..<sorted.count)
            let ids = sorted.ids(in: storedRange)
            let fresh = try matchingRows(ids.enumerated().filter { !sortedGone.contains(storedRange.lowerBound + $0.offset) }.map(\.element), db: db)
            var chunk: [SortedEntry] = []
            for index in range {
                if index >= sorted.count {
                    chunk.append(SortedEntry(index: index, stored: nil, pending: overlay.inserted[index - sorted.count]))
                } else if !sortedGone.contains(index) {
                    if let row = fresh[ids[index - storedRange.lowerBound]] {
                        chunk.append(SortedEntry(index: index, stored: row, pending: nil))
                    } else {
                        sortedGone.insert(index)
                    }
                }
            }
            let wanted = limit - found.count
            found = backward ? Array(chunk.suffix(wanted)) + found : found + chunk.prefix(wanted)
        }
        return found
    }

    /// The window with the entry at `anchor` (or, when it is gone, the next one; the one before
    /// when none follows) at screen line `line`, as near as the ends of the result allow.
    func sortedSlice(around anchor: Int, line: Int, db: any EngineSession) throws -> (slice: Slice, anchor: ObjectID?) {
        var before = try sortedEntries(from: anchor - 1, backward: true, limit: line, db: db)
        let wanted = height - before.count
        let after = try sortedEntries(from: anchor, backward: false, limit: wanted, db: db)
        if after.count < wanted {
            // The end came first: fill the window from above.
            let top = before.first?.index ?? anchor
            before = try sortedEntries(from: top - 1, backward: true, limit: height - before.count - after.count, db: db) + before
        }
        var slice = Slice()
        for entry in before + after {
            if let stored = entry.stored {
                slice.append(stored: stored, query: query, overlay: overlay)
            } else if let pending = entry.pending {
                slice.append(pending: pending)
            }
        }
        slice.first = (before.first ?? after.first).map { sortedPosition(ofIndex: $0.index) } ?? 0
        slice.reachesEnd = after.count < wanted || after.last?.index == sortedEntryCount - 1
        return (slice, after.first.map(entryID) ?? before.last.map(entryID))
    }

    private func entryID(_ entry: SortedEntry) -> ObjectID {
        entry.pending?.id ?? query.objectID(of: entry.stored!)
    }

    /// The window at `position` of the sorted order. Before the first sort, the current rows
    /// are re-read in place: their values and deletions show at once.
    func sortedSlice(at position: Int, db: any EngineSession) throws -> Slice {
        guard sorted != nil else {
            var slice = Slice()
            let ids = window.rows.map(\.id).filter { !$0.isTemporary }
            let fresh = try matchingRows(ids, db: db)
            slice.first = window.firstRow
            for id in ids { if let row = fresh[id] { slice.append(stored: row, query: query, overlay: overlay) } }
            for row in overlay.inserted where window.rows.contains(where: { $0.id == row.id }) { slice.append(pending: row) }
            return slice
        }
        return try sortedSlice(around: sortedIndex(forPosition: position), line: 0, db: db).slice
    }

    /// Whole rows among `ids` that exist and match the filter, by ID.
    func matchingRows(_ ids: [ObjectID], db: any EngineSession) throws -> [ObjectID: [Value]] {
        guard !ids.isEmpty else { return [:] }
        var rows: [ObjectID: [Value]] = [:]
        for start in stride(from: 0, to: ids.count, by: 400) {
            let lookup = query.rows(ids: Array(ids[start..<min(ids.count, start + 400)]))
            for row in try db.rows(lookup.sql, lookup.arguments) {
                rows[query.objectID(of: row)] = row
            }
        }
        return rows
    }

    /// After a data change, before the new sort: the selection keeps its line. When it is gone
    /// the next row of the sorted order takes its place for now; the row that truly follows
    /// its old key is found once the new order arrives (see ``reanchorSorted(old:)``).
    func refreshSorted(old: LiveWindow, oldKeys: [[Value]?]) throws(StoreError) {
        guard sorted != nil, let selection = old.selection, let line = old.selectedLine,
              let index = sortedIndex(of: selection) else {
            let selecting: Selecting = old.selection.map { .idOrNeighbour($0, order: old.rows.map(\.id)) } ?? .line(0)
            try show(firstRow: old.firstRow, selecting: selecting)
            if let selection = old.selection, !selection.isTemporary, sorted != nil, window.selection != selection {
                // A row the sorted keys do not hold yet (a saved insert): selected again when
                // the new order arrives.
                awaitedSelection = (selection, old.selectedLine ?? 0, window.selection)
            }
            return
        }
        // (A change after a change, the new order not yet come: the line from before both.)
        let own = keptLine.flatMap { $0.id == selection && $0.meanwhile == line ? $0.line : nil } ?? line
        let (slice, anchor) = try read { db in try sortedSlice(around: index, line: own, db: db) }
        install(slice, selecting: anchor.map { .id($0) } ?? .line(own))
        if anchor != selection, let key = oldKeys.indices.contains(line) ? oldKeys[line] : nil, let anchor {
            vanishedSelection = (key, own, anchor)
        } else if anchor == selection {
            keptLine = (selection, own, window.selectedLine)
        }
    }

    /// After new sorted keys arrive: the selection keeps its line; when it is gone, the row that
    /// now sorts right after its old key takes its place (the one before when none follows).
    func reanchorSorted(old: LiveWindow, oldKeys: [[Value]?]) throws(StoreError) {
        guard sorted != nil else { return }
        var line = old.selectedLine ?? 0
        var anchor: Int?
        var vanishedKey: [Value]?
        if let awaited = awaitedSelection, old.selection == awaited.replacement, let index = sortedIndex(of: awaited.id) {
            anchor = index
            line = awaited.line
        } else if let remembered = vanishedSelection, old.selection == remembered.replacement {
            vanishedKey = remembered.key
            line = remembered.line
        } else if let selection = old.selection {
            if let index = sortedIndex(of: selection) {
                anchor = index
                if let kept = keptLine, kept.id == selection, kept.meanwhile == old.selectedLine { line = kept.line }
            } else if oldKeys.indices.contains(line) {
                vanishedKey = oldKeys[line]
            }
        }
        vanishedSelection = nil
        awaitedSelection = nil
        keptLine = nil
        if anchor == nil, let vanishedKey {
            anchor = try read { db -> Int? in
                let next = try forward(from: vanishedKey, inclusive: false, limit: 1, db: db).first
                    ?? backward(before: vanishedKey, limit: 1, db: db).first
                return next.flatMap { sortedIndex(of: query.objectID(of: $0)) }
            }
        }
        if anchor == nil, let selection = old.selection {
            // No key to go by (an unsaved insert): the nearest old neighbour still present.
            let index = old.rows.firstIndex { $0.id == selection } ?? 0
            let candidates = Array(old.rows.indices.dropFirst(index + 1)) + Array((0..<index).reversed())
            anchor = candidates.lazy.compactMap { self.sortedIndex(of: old.rows[$0].id) }.first
        }
        guard let anchor else {
            try show(firstRow: old.rows.isEmpty ? 0 : old.firstRow, selecting: .line(line))
            return
        }
        let (slice, selected) = try read { db in try sortedSlice(around: anchor, line: line, db: db) }
        install(slice, selecting: selected.map { .id($0) } ?? .line(line))
    }
}
