import GRDB

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
        let slice: Slice = try read { db in
            walksByKey ? try keyedSlice(at: max(0, firstRow), db: db) : try sortedSlice(at: max(0, firstRow), db: db)
        }
        install(slice, selecting: selecting)
    }

    /// Shows the end of the result.
    func showEnd(selecting: Selecting) throws(StoreError) {
        let slice: Slice = try read { db in
            walksByKey ? try keyedEnd(db: db) : try sortedSlice(at: Int.max / 2, db: db)
        }
        install(slice, selecting: selecting)
    }

    func install(_ slice: Slice, selecting: Selecting) {
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
            stored = sorted?.count
        }
        if let stored, let builtAt {
            return builtAt.data == dataVersion ? .exact(stored + pendingInserts) : .approximately(stored + pendingInserts)
        }
        if slice.reachesEnd { return .exact(slice.first + slice.rows.count) }
        return .counting(atLeast: slice.first + slice.rows.count)
    }

    // MARK: - Walking by key

    func forward(from key: [Value]?, inclusive: Bool, limit: Int, offset: Int = 0, db: Database) throws -> [[Value]] {
        guard limit > 0 else { return [] }
        let page = query.page(from: key, inclusive: inclusive, limit: limit, offset: offset)
        return try db.cachedStatement(sql: page.sql).fetchValueRows(arguments: page.arguments)
    }

    /// Up to `limit` rows just before `key` (the last rows when `key` is nil), in forward order.
    func backward(before key: [Value]?, limit: Int, db: Database) throws -> [[Value]] {
        guard limit > 0 else { return [] }
        let page = query.page(from: key, inclusive: false, backward: true, limit: limit)
        return try db.cachedStatement(sql: page.sql).fetchValueRows(arguments: page.arguments).reversed()
    }

    /// The position of the row with `key` among the stored rows: a seek to the nearest
    /// checkpoint and a count of at most about one stride of rows; without checkpoints yet, a
    /// count from the start.
    func position(of key: [Value], db: Database) throws -> Int {
        let checkpoint = positions?.checkpoint(atOrBefore: key, in: query)
        let between = query.countBetween(from: checkpoint?.key, before: key, limit: Int(Int32.max))
        let counted = try Int.fetchOne(db, sql: between.sql, arguments: between.arguments.statementArguments) ?? 0
        return (checkpoint?.position ?? 0) + counted
    }

    /// The window starting at `position`, walking from the current window when it is close,
    /// else seeking the nearest checkpoint.
    func keyedSlice(at position: Int, db: Database) throws -> Slice {
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
    func storedCount(db: Database) throws -> Int {
        if let positions, builtAt?.data == dataVersion { return positions.count }
        let count = query.count()
        return try Int.fetchOne(db, sql: count.sql, arguments: count.arguments.statementArguments) ?? 0
    }

    /// The last `height` rows: stored ones read backwards from the end, then unsaved inserts.
    func keyedEnd(db: Database) throws -> Slice {
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
    func keyedSlice(around key: [Value], line: Int, db: Database) throws -> Slice {
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
                if let row = try db.cachedStatement(sql: lookup.sql).fetchValueRows(arguments: lookup.arguments).first {
                    return .stored(id, query.key(of: row))
                }
            }
            // Gone: the nearest surviving neighbour in the old order, after then before.
            let index = oldWindow.rows.firstIndex { $0.id == id } ?? 0
            let candidates = Array(oldWindow.rows.indices.dropFirst(index + 1)) + Array((0..<index).reversed())
            let storedIDs = candidates.map { oldWindow.rows[$0].id }.filter { !$0.isTemporary }
            var survivors: [ObjectID: [Value]] = [:]
            if !storedIDs.isEmpty {
                let lookup = query.rows(ids: storedIDs)
                for row in try db.makeStatement(sql: lookup.sql).fetchValueRows(arguments: lookup.arguments) {
                    survivors[query.objectID(of: row)] = query.key(of: row)
                }
            }
            for candidate in candidates {
                let candidateID = oldWindow.rows[candidate].id
                if let key = survivors[candidateID] { return .stored(candidateID, key) }
                if candidateID.isTemporary, overlay.inserted.contains(where: { $0.id == candidateID }) { return .pending(candidateID) }
            }
            // None of the old window survived: the first row after the old one's place.
            if oldKeys.indices.contains(index), let oldKey = oldKeys[index] {
                if let next = try forward(from: oldKey, inclusive: false, limit: 1, db: db).first {
                    return .stored(query.objectID(of: next), query.key(of: next))
                }
                if let previous = try backward(before: oldKey, limit: 1, db: db).first {
                    return .stored(query.objectID(of: previous), query.key(of: previous))
                }
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

    /// The window at `position` of the sorted keys (then unsaved inserts). Before the keys
    /// exist, the current rows are re-read in place: their values and deletions show at once.
    func sortedSlice(at position: Int, db: Database) throws -> Slice {
        var slice = Slice()
        guard let sorted else {
            let ids = window.rows.map(\.id).filter { !$0.isTemporary }
            let fresh = try rowsByID(ids, db: db)
            slice.first = window.firstRow
            for id in ids { if let row = fresh[id] { slice.append(stored: row, query: query, overlay: overlay) } }
            for row in overlay.inserted where window.rows.contains(where: { $0.id == row.id }) { slice.append(pending: row) }
            return slice
        }
        let total = sorted.count + overlay.inserted.count
        let start = min(max(0, position), max(0, total - height))
        slice.first = start
        // Rows deleted since the sort are skipped (the next ones fill in) until it is redone.
        var next = start
        while slice.rows.count < height, next < sorted.count {
            let ids = sorted.ids(in: next..<min(sorted.count, next + height - slice.rows.count + 16))
            next += ids.count
            let fresh = try rowsByID(ids, db: db)
            for id in ids where slice.rows.count < height {
                if let row = fresh[id] { slice.append(stored: row, query: query, overlay: overlay) }
            }
        }
        let tailStart = max(0, start - sorted.count)
        for row in overlay.inserted.dropFirst(tailStart).prefix(height - slice.rows.count) { slice.append(pending: row) }
        slice.reachesEnd = next >= sorted.count && start + slice.rows.count >= total - (next - start - slice.rows.count)
        return slice
    }

    /// Whole rows by ID (those that still exist), in any order.
    func rowsByID(_ ids: [ObjectID], db: Database) throws -> [ObjectID: [Value]] {
        guard !ids.isEmpty else { return [:] }
        var rows: [ObjectID: [Value]] = [:]
        let table = query.table
        for chunk in stride(from: 0, to: ids.count, by: 400).map({ Array(ids[$0..<min(ids.count, $0 + 400)]) }) {
            let sql = "SELECT \(table.selectList) FROM \(table.quotedName) WHERE \(table.keyInSQL(count: chunk.count))"
            for row in try db.cachedStatement(sql: sql).fetchValueRows(arguments: chunk.flatMap { $0.primaryKeyValues ?? [] }) {
                rows[query.objectID(of: row)] = row
            }
        }
        return rows
    }

    /// After new sorted keys arrive: the selection (or top row) keeps its line; when it is gone,
    /// its nearest neighbour in the old order takes its place.
    func reanchorSorted(old: LiveWindow) throws(StoreError) {
        guard let sorted else { return }
        let line = old.selectedLine ?? 0
        let anchorIndex = old.selectedLine ?? 0
        func position(of id: ObjectID) -> Int? {
            if id.isTemporary {
                return overlay.inserted.firstIndex { $0.id == id }.map { sorted.count + $0 }
            }
            return sorted.position(of: id)
        }
        var target: (id: ObjectID, position: Int)?
        if old.rows.indices.contains(anchorIndex) {
            let candidates = [anchorIndex] + Array(old.rows.indices.dropFirst(anchorIndex + 1)) + Array((0..<anchorIndex).reversed())
            for candidate in candidates {
                let id = old.rows[candidate].id
                if let found = position(of: id) {
                    target = (id, found)
                    break
                }
            }
        }
        guard let target else {
            try show(firstRow: old.rows.isEmpty ? 0 : old.firstRow, selecting: .line(line))
            return
        }
        try show(firstRow: target.position - line, selecting: .id(target.id))
    }
}
