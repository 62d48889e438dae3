import Foundation
import GRDB

/// Reads a CSV, TSV, JSON Lines or JSON file into a table, in batches of one short
/// transaction each (so an editor's save waits for at most one batch), through the
/// container's writer: every batch's commit is announced like any save, and live lists
/// follow it. The file is streamed; memory does not grow with it.
///
/// Bad rows are reported with their line, column and reason, and skipped (or stop the import,
/// with ``ImportOptions/OnError/abort``). Cancelling keeps the batches already committed,
/// unless the import is atomic.
public final class Importer {
    let core: StoreCore
    let path: String
    let options: ImportOptions
    private let identity: ContextIdentity
    private var fileName: String { PathText.name(of: path) }

    /// The table the import makes first (``TableCreator/plan(database:file:options:)``), in
    /// the import's own transaction when it is atomic.
    let creating: TableCreator.Created?

    /// An import of `file` into `options.table`; with `creating`, the table is made by the
    /// import (all or nothing with the rows when the import is atomic).
    public init(container: Container, file: String, options: ImportOptions, creating: TableCreator.Created? = nil) {
        core = container.core
        path = file
        self.options = options
        self.creating = creating
        identity = container.core.makeIdentity(name: "import", role: .importer)
    }

    /// One row ready to write: the values for `columns` (indexes into the table's columns),
    /// or the same row in COPY's text format.
    package struct PendingRow: Sendable {
        package let line: Int
        /// The table's columns the values go to (indexes into its columns).
        package let columns: [Int]
        private let given: [Value]
        /// The row as COPY's text format has it (``CopyTextRow``), made by the reading thread
        /// for an engine that takes it (``SQLDialect/importsCopyText``); nil when the row
        /// came as values.
        package let copyText: ArraySlice<UInt8>?

        package init(line: Int, columns: [Int], values: [Value]) {
            self.line = line
            self.columns = columns
            given = values
            copyText = nil
        }

        package init(line: Int, columns: [Int], copyText: ArraySlice<UInt8>) {
            self.line = line
            self.columns = columns
            given = []
            self.copyText = copyText
        }

        /// The values (read from ``copyText`` each time, when the row came so: for the few
        /// rows sent another way).
        package var values: [Value] { copyText.map(CopyTextRow.values(of:)) ?? given }
    }

    /// Runs the import. `progress` hears about every batch; `isCancelled` is asked between
    /// batches. Both are called on the importing thread.
    public func run(progress: (ImportProgress) -> Void = { _ in }, isCancelled: () -> Bool = { false }) throws(ImportError) -> ImportSummary {
        let entity: Entity
        do {
            if let creating, let engine = core.engine {
                entity = try Entity(table: try engine.describe(creating: creating.sql, table: options.table), description: nil)
            } else if let creating {
                entity = try Entity(table: try TableCreator.schema(of: creating, table: options.table), description: nil)
            } else {
                entity = try core.entity(options.table)
            }
            if entity.table.isView { throw StoreError.viewNotWritable(view: entity.name, kind: nil) }
        } catch {
            throw .store(Self.storeError(error, path: core.path))
        }
        if let reason = core.readOnlyReason { throw .store(.readOnly(reason)) }
        let (handle, opened, totalBytes) = try Self.open(path, options: options)
        var reader = opened
        defer { try? handle.close() }
        let started = DispatchTime.now().uptimeNanoseconds

        var summary = ImportSummary()
        let mapping = try headerMapping(&reader, entity: entity)
        let writer = BatchWriter(entity: entity, mode: options.mode, stopAtFirst: options.onError == .abort, core: core, file: fileName)
        if options.mode == .upsert, let fields = mapping.csv, writer.conflictTarget(for: fields.compactMap { $0 }) == nil {
            throw .noUpsertKey(table: entity.name)
        }

        // Parsing runs on a thread of its own, a batch or two ahead of the writing here: the
        // two overlap on two cores, and only the writing holds the lock.
        let rowsPerBatch = options.batchSize ?? core.engine?.importBatchRows ?? ImportOptions.defaultBatchSize
        // (An engine that copies gets an insert's rows in its copy format, made while reading:
        // a string and a value a field cost the writing thread 0.35 s of a million rows.)
        let copyText = core.engine != nil && entity.table.dialect.importsCopyText && options.mode == .insert && !mapping.mappedColumns.isEmpty
        let batches = Prefetcher(BatchReader(reader: reader, mapping: mapping, entity: entity, options: options, rowsPerBatch: rowsPerBatch,
                                             file: fileName, path: path, copyText: copyText))
        defer { batches.stop() }
        do {
            if let engine = core.engine {
                // The engine writes the rows, on a connection of the import's own.
                // (All or nothing stops at its first refused row too: the rest is rolled back anyway,
                // and each refused row costs the server a round trip.)
                // (The group is named apart from every other client's on a shared journal. A file
                // of more records than the journal keeps, at 160 bytes a record, is listed
                // without them from the start: recording its first batches only to drop them
                // took a million-row import from 1.9 s to 3.6 s.)
                let history = core.engineJournal.map { journal in
                    HistoryNote(source: .import, group: "import-" + UUID().uuidString, keepsRecords: totalBytes / 160 <= journal.recordLimit)
                }
                let load = try engine.beginImport(into: entity.table, mode: options.mode, atomic: options.atomic,
                                                  stopAtFirst: options.onError == .abort || options.atomic, file: fileName, history: history,
                                                  creating: creating?.sql)
                defer {
                    load.close()
                    // (The editor lists the table made, when it was.)
                    if creating != nil { _ = try? core.reloadSchema() }
                }
                try consume(batches, into: &summary, started: started, totalBytes: totalBytes, progress: progress, isCancelled: isCancelled) { rows in
                    try load.write(rows)
                }
                if options.atomic {
                    if summary.rejected > 0 || summary.cancelled { throw AtomicRollback() }
                    try load.commit()
                }
            } else if options.atomic {
                // All or nothing: one transaction for the whole file (other writers wait),
                // written batch by batch (memory stays flat, cancel is heard between
                // batches), rolled back when a row is refused or the import is cancelled.
                try core.write(origin: .context(identity), bulkTables: [entity.name]) { db, note in
                    if let creating { try db.execute(sql: creating.sql) }
                    let recorder = note.recorder
                    try consume(batches, into: &summary, started: started, totalBytes: totalBytes, progress: progress, isCancelled: isCancelled) { rows in
                        try writer.write(rows, db: db, recorder: recorder)
                    }
                    if summary.rejected > 0 || summary.cancelled { throw AtomicRollback() }
                }
                if creating != nil { try core.reloadSchema() }
            } else {
                if let creating {
                    try core.write(origin: .context(identity)) { db, _ in try db.execute(sql: creating.sql) }
                    // (Its batches are journaled by the schema that has the table.)
                    try core.reloadSchema()
                }
                try consume(batches, into: &summary, started: started, totalBytes: totalBytes, progress: progress, isCancelled: isCancelled) { rows in
                    try core.write(origin: .context(identity), bulkTables: [entity.name]) { db, note in try writer.write(rows, db: db, recorder: note.recorder) }
                }
            }
        } catch is AtomicRollback {
            summary.rolledBack = true
            (summary.inserted, summary.updated, summary.unchanged, summary.skipped) = (0, 0, 0, 0)
        } catch let error as ImportError {
            throw .stopped(error, imported: summary.inserted + summary.updated, atomic: options.atomic)
        } catch {
            throw .stopped(.store(Self.storeError(error, path: core.path)), imported: summary.inserted + summary.updated, atomic: options.atomic)
        }
        return summary
    }

    /// Takes batches until the file ends or the import stops, writing each with `write`
    /// (after a refused row, an atomic import only reads on, to report the other bad rows).
    private func consume(
        _ batches: Prefetcher, into summary: inout ImportSummary, started: UInt64, totalBytes: Int,
        progress: (ImportProgress) -> Void, isCancelled: () -> Bool, write: ([PendingRow]) throws -> BatchWriter.Outcome
    ) throws {
        while let batch = try batches.next() {
            if isCancelled() {
                summary.cancelled = true
                summary.stoppedEarly = true
                summary.stoppedAtLine = batch.firstLine
                break
            }
            summary.rejected += batch.problems.count
            summary.errors += batch.problems.prefix(max(0, ImportSummary.errorsKept - summary.errors.count))
            var stop = options.onError == .abort && !batch.problems.isEmpty
            if stop {
                summary.stoppedEarly = true
                summary.stoppedAtLine = batch.problems.first?.line
            }
            if !batch.rows.isEmpty, !(options.atomic && summary.rejected > 0) {
                let outcome = try write(batch.rows)
                summary.add(outcome)
                // Reading and writing find problems at different times: report them in file order.
                summary.errors.sort { $0.line < $1.line }
                if options.onError == .abort, outcome.rejected > 0 {
                    summary.stoppedEarly = true
                    summary.stoppedAtLine = outcome.errors.first?.line
                    stop = true
                    // What the reader found after the row the database refused was never
                    // reached: the import stopped before it.
                    if let first = outcome.errors.first?.line {
                        let after = batch.problems.filter { $0.line > first }
                        summary.rejected -= after.count
                        summary.errors.removeAll { after.contains($0) }
                    }
                }
            }
            batches.recycle(batch)
            progress(ImportProgress(
                rows: summary.inserted + summary.updated + summary.unchanged + summary.skipped + summary.rejected,
                bytes: batch.bytesRead, totalBytes: totalBytes,
                seconds: Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9))
            if stop { break }
        }
    }

    private static func storeError(_ error: any Error, path: String) -> StoreError {
        if let error = error as? StoreError { return error }
        if let error = error as? DatabaseError { return .working(error, path: path) }
        return .database(code: -1, message: String(describing: error))
    }

    private struct AtomicRollback: Error {}

    // MARK: - Reading the first row

    private func headerMapping(_ reader: inout RecordSource, entity: Entity) throws(ImportError) -> ColumnMapping {
        let table = entity.table
        guard case .csv = reader else {
            var mapping = ColumnMapping(csv: nil, table: table)
            for column in creating?.columns ?? [] {
                if let source = column.sourceName, source != column.name { mapping.renamed[source.lowercased()] = column.name }
            }
            return mapping
        }
        guard options.header else {
            return ColumnMapping(csv: table.columns.indices.filter { table.columns[$0].isWritable }.map { Optional($0) }, table: table)
        }
        let first: RecordSource.Outcome?
        do { first = try reader.next() } catch { throw .cannotRead(path: path, reason: error.localizedDescription) }
        guard let first else { throw .noHeader(file: fileName) }
        guard case .fields(let names, _) = first else {
            if case .problem(let reason, let line) = first { throw .cannotRead(path: path, reason: "line \(line): \(reason)") }
            throw .noHeader(file: fileName)
        }
        var columns: [Int?] = []
        var unknown: [String] = []
        var filled: [String] = []
        // Blank and repeated names are read as `--create` names them (`column_3`, `name_2`);
        // a table made now has the file's columns last, by the names it gave them (cut to a
        // server's length), after a key it added.
        var read = TableCreator.uniqueNames(names.map { $0.text.trimmingCharacters(in: .whitespaces) })
        if let creating, creating.columns.count >= read.count { read = creating.columns.suffix(read.count).map(\.name) }
        for name in read {
            if let index = table.columnIndex(named: name), table.columns[index].isWritable {
                columns.append(index)
            } else {
                columns.append(nil)
                if table.columnIndex(named: name) != nil { filled.append(name) } else { unknown.append(name) }
            }
        }
        if !unknown.isEmpty, !options.ignoreUnknown {
            throw .unknownColumns(file: fileName, columns: unknown, table: table.name)
        }
        if !filled.isEmpty, !options.ignoreUnknown {
            throw .filledByDatabase(file: fileName, columns: filled, table: table.name)
        }
        return ColumnMapping(csv: columns, table: table)
    }

    /// Opens `path` and the reader its format (given, or from its extension) needs.
    ///
    /// The input is opened and read exactly once, so a FIFO, `/dev/stdin` and `-` (standard
    /// input) work: the delimiter is sniffed from the first block the reader already holds.
    static func open(_ path: String, options: ImportOptions) throws(ImportError) -> (FileHandle, RecordSource, totalBytes: Int) {
        var info = stat()
        let exists = path == "-" || stat(path, &info) == 0
        if exists, path != "-", info.st_mode & S_IFMT == S_IFDIR { throw .cannotRead(path: path, reason: "it is a folder, not a file") }
        let format: ImportOptions.Format
        if let given = options.format { format = given } else if path == "-" { format = .csv } else { format = try Self.format(of: path) }
        guard let handle = path == "-" ? FileHandle.standardInput : FileHandle(forReadingAtPath: path) else {
            throw .cannotRead(path: path, reason: exists ? String(cString: strerror(errno)) : "no such file")
        }
        // A regular file's size gives the progress a fraction; a pipe has none.
        let totalBytes = path != "-" && info.st_mode & S_IFMT == S_IFREG ? Int(info.st_size) : 0
        do {
            let source = try ByteSource(handle: handle, encoding: options.encoding.map { ByteSource.Encoding(rawValue: $0.rawValue)! },
                                        recordLimit: options.maxRecordBytes)
            switch format {
            case .csv: return (handle, .csv(CSVReader(source: source, delimiter: options.delimiter ?? Self.detectDelimiter(source.firstBlock))), totalBytes)
            case .tsv: return (handle, .csv(CSVReader(source: source, delimiter: options.delimiter ?? 0x09)), totalBytes)
            case .jsonl: return (handle, .json(JSONRecordReader(source: source, layout: .lines)), totalBytes)
            case .json: return (handle, .json(JSONRecordReader(source: source, layout: .array)), totalBytes)
            }
        } catch let error as ImportError {
            try? handle.close()
            throw error
        } catch {
            try? handle.close()
            throw .cannotRead(path: path, reason: error.localizedDescription)
        }
    }

    static func format(of path: String) throws(ImportError) -> ImportOptions.Format {
        switch PathText.lowercasedExtension(of: path) {
        case "csv", "txt": return .csv
        case "tsv", "tab": return .tsv
        case "jsonl", "ndjson": return .jsonl
        case "json": return .json
        default: throw .unknownFormat(path: path)
        }
    }

    /// The delimiter the first line of `data` uses most, outside quotes: `,`, `;`, `|` or a tab.
    static func detectDelimiter(_ data: [UInt8]) -> UInt8 {
        var counts: [UInt8: Int] = [0x2C: 0, 0x3B: 0, 0x7C: 0, 0x09: 0]
        var quoted = false
        for byte in data {
            if byte == 0x22 { quoted.toggle() }
            if byte == 0x0A, !quoted { break }
            if !quoted, counts[byte] != nil { counts[byte]! += 1 }
        }
        let best = counts.max { $0.value < $1.value || ($0.value == $1.value && $0.key != 0x2C) }
        return (best?.value ?? 0) > 0 ? best!.key : 0x2C
    }
}

/// The reader in use, behind one face.
enum RecordSource {
    case csv(CSVReader)
    case json(JSONRecordReader)

    enum Outcome {
        /// A delimited record, in the ``CSVRecord`` given to ``next(reusing:)``.
        case record(line: Int)
        case fields([CSVField], line: Int)
        case object([(key: String, value: Value)], line: Int)
        case problem(String, line: Int)
    }

    mutating func next() throws -> Outcome? {
        switch self {
        case .csv(var reader):
            defer { self = .csv(reader) }
            switch try reader.next() {
            case .record(let fields, let line)?: return .fields(fields, line: line)
            case .problem(let reason, let line)?: return .problem(reason, line: line)
            case nil: return nil
            }
        case .json(var reader):
            defer { self = .json(reader) }
            switch try reader.next() {
            case .record(let pairs, let line)?: return .object(pairs, line: line)
            case .problem(let reason, let line)?: return .problem(reason, line: line)
            case nil: return nil
            }
        }
    }

    /// The next record; a delimited one is read into `record` (and reported as `.record`).
    mutating func next(reusing record: inout CSVRecord) throws -> Outcome? {
        // (Moved out and back, not copied: a copy shared the reader's buffers, and retaining
        // and releasing them took a tenth of a CSV import's reading.)
        switch consume self {
        case .csv(var reader):
            defer { self = .csv(reader) }
            switch try reader.read(into: &record) {
            case .record(let line)?: return .record(line: line)
            case .problem(let reason, let line)?: return .problem(reason, line: line)
            case nil: return nil
            }
        case .json(let reader):
            self = .json(reader)
            return try next()
        }
    }

    var line: Int {
        switch self {
        case .csv(let reader): return reader.line
        case .json(let reader): return reader.currentLine
        }
    }

    var bytesRead: Int {
        switch self {
        case .csv(let reader): return reader.bytesRead
        case .json(let reader): return reader.bytesRead
        }
    }
}

extension ImportSummary {
    mutating func add(_ outcome: BatchWriter.Outcome) {
        inserted += outcome.inserted
        updated += outcome.updated
        unchanged += outcome.unchanged
        skipped += outcome.skipped
        rejected += outcome.rejected
        errors += outcome.errors.prefix(max(0, ImportSummary.errorsKept - errors.count))
    }
}
