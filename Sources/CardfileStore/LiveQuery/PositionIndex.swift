/// Where rows stand in an order an index serves: the key of every `stride`-th row, and the
/// count. SQLite has no "row number N" lookup, and `OFFSET N` steps over N rows; with this,
/// row N is a keyset seek to the nearest checkpoint and an `OFFSET` below `stride`.
///
/// Built by one pass over the keys in the background. After the data changes, its keys are
/// still valid places to seek from, but positions past a change are off by the rows inserted
/// or deleted before them, until it is rebuilt.
struct PositionIndex: Sendable {
    /// Rows between checkpoints (a power of two, grown as the table is scanned so that the
    /// index stays under `maximumCheckpoints` keys).
    private(set) var stride: Int
    /// `keys[i]` is the key of the row at position `i * stride`.
    private(set) var keys: [[Value]]
    private(set) var count: Int

    static let maximumCheckpoints = 4096

    init(stride: Int = 64) {
        self.stride = stride
        keys = []
        count = 0
    }

    /// Adds the next row's key while scanning in order.
    mutating func append(_ key: [Value]) {
        if count % stride == 0 {
            keys.append(key)
            if keys.count > Self.maximumCheckpoints {
                // Keep every other checkpoint: they are now `2 * stride` apart.
                keys = keys.enumerated().compactMap { $0.offset % 2 == 0 ? $0.element : nil }
                stride *= 2
            }
        }
        count += 1
    }

    /// Scans every key of `query` on `db`.
    static func build(_ query: OrderedQuery, db: any EngineSession, cancellation: Cancellation, progress: (Int) -> Void) throws -> PositionIndex {
        var index = PositionIndex()
        let keys = query.allKeys()
        try db.forEachRow(keys.sql, keys.arguments, cancellation: cancellation) { key in
            index.append(key)
            if index.count % 16_384 == 0 {
                if cancellation.isCancelled { throw Cancellation.Stopped() }
                progress(index.count)
            }
        }
        return index
    }

    /// The checkpoint at or before `position`.
    func checkpoint(atOrBefore position: Int) -> (position: Int, key: [Value])? {
        guard !keys.isEmpty, position >= 0 else { return nil }
        let slot = min(keys.count - 1, position / stride)
        return (slot * stride, keys[slot])
    }

    /// The last checkpoint whose key is at or before `key` in `query`'s order.
    func checkpoint(atOrBefore key: [Value], in query: OrderedQuery) -> (position: Int, key: [Value])? {
        checkpoint { query.compare($0, key) <= 0 }
    }

    /// The last checkpoint for which `isAtOrBefore` holds (false for every checkpoint after
    /// the first for which it fails): a binary search, asking `isAtOrBefore` about a dozen
    /// checkpoints at most.
    func checkpoint<E: Error>(where isAtOrBefore: ([Value]) throws(E) -> Bool) throws(E) -> (position: Int, key: [Value])? {
        var low = 0
        var high = keys.count
        while low < high {
            let middle = (low + high) / 2
            if try isAtOrBefore(keys[middle]) { low = middle + 1 } else { high = middle }
        }
        guard low > 0 else { return nil }
        return ((low - 1) * stride, keys[low - 1])
    }

    /// ``checkpoint(where:)`` asking about up to `width` checkpoints at a time, in one call of
    /// `areAtOrBefore` (their answers in the same order): a search that cuts the candidates in
    /// `width + 1` parts each time, so an engine answering all of a call's checkpoints in one
    /// round trip is asked two or three times where a binary search asked a dozen.
    func checkpoint<E: Error>(askingAtOnce width: Int, where areAtOrBefore: ([[Value]]) throws(E) -> [Bool]) throws(E) -> (position: Int, key: [Value])? {
        var low = 0
        var high = keys.count
        while low < high {
            let span = high - low
            let asked = span <= width ? Array(low..<high) : (0..<width).map { low + (($0 + 1) * span) / (width + 1) }
            let answers = try areAtOrBefore(asked.map { keys[$0] })
            // (The answers hold for a prefix of the checkpoints: true, …, true, false, ….)
            let held = answers.prefix { $0 }.count
            if held > 0 { low = asked[held - 1] + 1 }
            if held < asked.count { high = asked[held] } else if span <= width { high = low }
        }
        guard low > 0 else { return nil }
        return ((low - 1) * stride, keys[low - 1])
    }
}
