import Foundation

/// Reads and maps the next batch of rows from a file (the parsing half of an import).
final class BatchReader: @unchecked Sendable {
    struct Batch: Sendable {
        var rows: [Importer.PendingRow] = []
        var problems: [ImportRowError] = []
        /// The line the batch started on.
        var firstLine: Int
        var bytesRead = 0
    }

    private var reader: RecordSource
    private let mapping: ColumnMapping
    private let entity: Entity
    private let options: ImportOptions
    private let file: String
    private let path: String
    /// Rows (good and bad) a batch holds.
    private let rowsPerBatch: Int
    private var finished = false
    /// The record being read, reused from row to row.
    private var record = CSVRecord()
    /// A delimited file's rows go in COPY's text format (``Importer/PendingRow/copyText``).
    private let copyText: Bool

    init(reader: RecordSource, mapping: ColumnMapping, entity: Entity, options: ImportOptions, rowsPerBatch: Int, file: String, path: String, copyText: Bool = false) {
        self.copyText = copyText
        self.reader = reader
        self.rowsPerBatch = rowsPerBatch
        self.mapping = mapping
        self.entity = entity
        self.options = options
        self.file = file
        self.path = path
    }

    /// The next batch; nil when the file is done. With `--on-error abort` a batch ends at its
    /// first problem (and is the last one).
    func next() throws(ImportError) -> Batch? {
        guard !finished else { return nil }
        // The reader and the record are worked on as this function's own for the batch, and
        // put back after: as the class's properties, every use was checked for exclusive
        // access at run time.
        var reader = self.reader
        var record = self.record
        self.record = CSVRecord()
        defer {
            self.reader = reader
            self.record = record
        }
        var batch = Batch(firstLine: reader.line)
        // Rows in COPY's text format, one after another: each row's slice is taken when the
        // batch is done (slicing earlier would copy the buffer at the next append).
        var copyRows: [UInt8] = []
        var copyEnds: [(line: Int, end: Int)] = []
        if copyText {
            // (Room for the batch as it usually is, not as large as `--batch-size` may say.)
            let expected = min(rowsPerBatch, 65_536)
            copyRows.reserveCapacity(expected * 64)
            copyEnds.reserveCapacity(expected)
        }
        // Bad rows count too: a file where every row is bad (the wrong encoding) still
        // comes in batches, with progress, cancel and flat memory.
        while batch.rows.count + copyEnds.count + batch.problems.count < rowsPerBatch {
            let next: RecordSource.Outcome?
            do { next = try reader.next(reusing: &record) } catch { throw .cannotRead(path: path, reason: error.localizedDescription) }
            guard let next else {
                finished = true
                break
            }
            switch next {
            case .problem(let reason, let line):
                batch.problems.append(ImportRowError(file: file, line: line, column: nil, reason: reason))
            case .record(let line):
                // A blank line is no record.
                if record.count == 1, record.isEmpty(0), !record.quoted[0] { continue }
                if copyText {
                    if let problem = mapping.copyText(from: record, emptyAsText: options.emptyAsText, to: &copyRows) {
                        batch.problems.append(ImportRowError(file: file, line: line, column: problem.column, reason: problem.reason))
                    } else {
                        copyEnds.append((line, copyRows.count))
                    }
                    break
                }
                switch mapping.row(from: record, emptyAsText: options.emptyAsText) {
                case .success(let row): batch.rows.append(Importer.PendingRow(line: line, columns: row.columns, values: row.values))
                case .failure(let problem): batch.problems.append(ImportRowError(file: file, line: line, column: problem.column, reason: problem.reason))
                }
            case .fields(let fields, let line):
                // A blank line is no record.
                if fields.count == 1, fields[0].text.isEmpty, !fields[0].quoted { continue }
                switch mapping.row(from: fields, entity: entity, emptyAsText: options.emptyAsText) {
                case .success(let row): batch.rows.append(Importer.PendingRow(line: line, columns: row.columns, values: row.values))
                case .failure(let problem): batch.problems.append(ImportRowError(file: file, line: line, column: problem.column, reason: problem.reason))
                }
            case .object(let pairs, let line):
                switch mapping.row(from: pairs, entity: entity, ignoreUnknown: options.ignoreUnknown) {
                case .success(let row): batch.rows.append(Importer.PendingRow(line: line, columns: row.columns, values: row.values))
                case .failure(let problem): batch.problems.append(ImportRowError(file: file, line: line, column: problem.column, reason: problem.reason))
                }
            }
            if options.onError == .abort, !batch.problems.isEmpty {
                finished = true
                break
            }
        }
        if !copyEnds.isEmpty {
            let columns = mapping.mappedColumns
            var start = 0
            batch.rows.reserveCapacity(copyEnds.count)
            for (line, end) in copyEnds {
                batch.rows.append(Importer.PendingRow(line: line, columns: columns, copyText: copyRows[start..<end]))
                start = end
            }
        }
        batch.bytesRead = reader.bytesRead
        if batch.rows.isEmpty, batch.problems.isEmpty, finished { return nil }
        return batch
    }
}

/// Runs a ``BatchReader`` on a thread of its own, up to two batches ahead of the caller.
final class Prefetcher: @unchecked Sendable {
    private let condition = NSCondition()
    private var queue: [Result<BatchReader.Batch?, ImportError>] = []
    private var stopped = false
    private var ended = false
    /// Batches written and handed back: freed on the reading thread, which has time to spare
    /// (a million rows' strings and arrays cost the writing thread a tenth of its time).
    private var written: [BatchReader.Batch] = []

    /// Signalled when the reading thread has ended.
    private let exited = DispatchSemaphore(value: 0)

    init(_ reader: BatchReader) {
        let thread = Thread { [self] in
            defer { exited.signal() }
            while true {
                condition.lock()
                while queue.count >= 2, !stopped { condition.wait() }
                let stop = stopped
                var freed = written
                written = []
                condition.unlock()
                freed.removeAll()
                if stop { return }
                let result: Result<BatchReader.Batch?, ImportError>
                result = Result { () throws(ImportError) in try reader.next() }
                condition.lock()
                queue.append(result)
                condition.broadcast()
                condition.unlock()
                if case .success(nil) = result { return }
                if case .failure = result { return }
            }
        }
        thread.start()
    }

    /// The next batch, waiting for it; nil at the end.
    func next() throws(ImportError) -> BatchReader.Batch? {
        condition.lock()
        defer { condition.unlock() }
        guard !ended else { return nil }
        while queue.isEmpty { condition.wait() }
        let result = queue.removeFirst()
        condition.broadcast()
        switch result {
        case .success(let batch):
            if batch == nil { ended = true }
            return batch
        case .failure(let error):
            ended = true
            throw error
        }
    }

    /// Takes back a batch the caller is done with, so that the reading thread frees it.
    func recycle(_ batch: BatchReader.Batch) {
        condition.lock()
        if !stopped, !ended { written.append(batch) }
        condition.unlock()
    }

    /// Ends the reading thread and waits for it (at most the batch it is reading), so the
    /// file it reads can be closed.
    func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
        exited.wait()
        exited.signal()   // a second stop returns at once
    }
}
