/// What a live query shows: a table, an order, a filter.
public struct LiveQuerySpec: Hashable, Sendable {
    public var table: String
    /// Sort keys; the primary key is always the final tie-break, in the direction of the last
    /// sort key.
    public var sort: [ColumnSort]
    /// The filter as a person typed it (see ``FilterParser``).
    public var filter: String
    /// The columns free text searches (the displayed ones); nil means every column.
    public var searchColumns: [String]?

    public init(table: String, sort: [ColumnSort] = [], filter: String = "", searchColumns: [String]? = nil) {
        self.table = table
        self.sort = sort
        self.filter = filter
        self.searchColumns = searchColumns
    }
}

/// One visible row.
public struct LiveRow: Hashable, Sendable {
    public let id: ObjectID
    /// Column values (pending edits of the context shown), aligned with the table's columns.
    public let values: [Value]
    /// `.inserted`, `.updated` and `.deleted` mark changes not yet on disk.
    public let status: Record.Status
}

/// How many rows match.
public enum RowCount: Hashable, Sendable {
    /// Exactly this many.
    case exact(Int)
    /// Was exact before the data changed; being recounted.
    case approximately(Int)
    /// Still counting; at least this many are known.
    case counting(atLeast: Int)

    /// The number known so far.
    public var known: Int {
        switch self {
        case .exact(let count), .approximately(let count), .counting(let count): return count
        }
    }

    public var isExact: Bool {
        if case .exact = self { return true }
        return false
    }
}

/// The rows on screen and where they stand in the whole result.
public struct LiveWindow: Hashable, Sendable {
    public let rows: [LiveRow]
    /// Position of the first row in the whole ordered result, from 0.
    public let firstRow: Int
    public let count: RowCount
    /// The selected row, when there is one.
    public let selection: ObjectID?
    /// The table's column names, aligned with each row's values.
    public let columns: [String]

    /// The screen line of the selection, when it is visible.
    public var selectedLine: Int? {
        guard let selection else { return nil }
        return rows.firstIndex { $0.id == selection }
    }

    /// The selected row's position in the whole result, when it is visible.
    public var selectedPosition: Int? {
        selectedLine.map { firstRow + $0 }
    }

    static func empty(columns: [String]) -> LiveWindow {
        LiveWindow(rows: [], firstRow: 0, count: .counting(atLeast: 0), selection: nil, columns: columns)
    }
}

/// How the visible rows changed in one refresh.
public struct WindowChange: Hashable, Sendable {
    /// Rows now visible that were not.
    public let inserted: [ObjectID]
    /// Rows no longer visible.
    public let deleted: [ObjectID]
    /// Rows still visible whose order relative to the others changed.
    public let moved: [ObjectID]
    /// Rows still visible whose values or status changed.
    public let updated: [ObjectID]
    /// The count after the change.
    public let count: RowCount
    /// True when the first row's position or the count changed.
    public let positionChanged: Bool
    /// True when the refresh behind this change read another process's commit (noticed by
    /// ``Container/checkForExternalChanges()``), alone or with changes of ours.
    public internal(set) var includesOutsideChanges = false

    public var isEmpty: Bool {
        inserted.isEmpty && deleted.isEmpty && moved.isEmpty && updated.isEmpty && !positionChanged
    }

    /// Compares two windows by ObjectID.
    static func between(_ old: LiveWindow, _ new: LiveWindow) -> WindowChange {
        let oldIDs = old.rows.map(\.id)
        let newIDs = new.rows.map(\.id)
        let oldSet = Set(oldIDs)
        let newSet = Set(newIDs)
        let oldRows = Dictionary(old.rows.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let common = newIDs.filter { oldSet.contains($0) }
        let oldIndex = Dictionary(oldIDs.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        let stable = Set(longestIncreasingSubsequence(common.map { oldIndex[$0]! }).map { oldIDs[$0] })
        return WindowChange(
            inserted: newIDs.filter { !oldSet.contains($0) },
            deleted: oldIDs.filter { !newSet.contains($0) },
            moved: common.filter { !stable.contains($0) },
            updated: new.rows.filter { row in oldRows[row.id].map { $0 != row } ?? false }.map(\.id),
            count: new.count,
            positionChanged: old.firstRow != new.firstRow || old.count != new.count)
    }

    /// The longest strictly increasing subsequence of `values` (patience sorting), as values.
    private static func longestIncreasingSubsequence(_ values: [Int]) -> [Int] {
        var tails: [Int] = []          // index into values of the smallest tail of each length
        var previous = Array(repeating: -1, count: values.count)
        for (index, value) in values.enumerated() {
            var low = 0
            var high = tails.count
            while low < high {
                let middle = (low + high) / 2
                if values[tails[middle]] < value { low = middle + 1 } else { high = middle }
            }
            if low > 0 { previous[index] = tails[low - 1] }
            if low == tails.count { tails.append(index) } else { tails[low] = index }
        }
        var result: [Int] = []
        var cursor = tails.last ?? -1
        while cursor >= 0 {
            result.append(values[cursor])
            cursor = previous[cursor]
        }
        return result.reversed()
    }
}

/// What a live query is doing in the background.
public enum LiveQueryActivity: Hashable, Sendable {
    case idle
    /// Counting the matching rows and indexing positions; `fraction` when it can be estimated.
    case counting(fraction: Double?)
    /// Ordering the matching rows for a sort no index serves; the previous rows stay shown.
    case sorting(fraction: Double?)
}
