import Foundation

/// How a file is read into a table. The defaults suit a CSV file with a header row.
public struct ImportOptions: Sendable {
    public enum Format: String, Sendable, CaseIterable {
        case csv, tsv, jsonl, json
    }

    /// What happens to a row whose key is already in the table.
    public enum Mode: String, Sendable, CaseIterable {
        /// The row is rejected (a constraint error).
        case insert
        /// The existing row is updated from the file (matched by primary key, else by a unique
        /// column set the file has).
        case upsert
        /// The row is skipped.
        case ignore
        /// The existing row is replaced.
        case replace
    }

    public enum OnError: String, Sendable, CaseIterable {
        /// Report the row and go on.
        case skip
        /// Stop at the first bad row (batches already committed stay, unless atomic).
        case abort
    }

    public enum Encoding: String, Sendable, CaseIterable {
        case utf8, latin1, utf16
    }

    public var table: String
    /// nil: from the file's extension (`.csv`, `.tsv`, `.jsonl`/`.ndjson`, `.json`).
    public var format: Format?
    /// For CSV: nil detects `,`, `;`, `|` or a tab from the first line.
    public var delimiter: UInt8?
    /// The first row names the columns; without it, fields map to columns by position.
    public var header: Bool
    /// nil: UTF-8, or what a byte-order mark says.
    public var encoding: Encoding?
    /// Columns the table does not have are skipped instead of being an error.
    public var ignoreUnknown: Bool
    /// An empty unquoted field is the empty string rather than NULL (files from tools that
    /// never quote).
    public var emptyAsText: Bool
    public var mode: Mode
    public var onError: OnError
    /// One transaction for the whole import: all or nothing (the write lock is held
    /// throughout, so other writers wait).
    public var atomic: Bool
    /// Rows per transaction; nil for the engine's own figure (``defaultBatchSize`` on SQLite).
    public var batchSize: Int?
    /// SQLite's rows per transaction: an editor's save waits for one batch at most.
    public static let defaultBatchSize = 5_000
    /// Make the table when it is missing, with column types inferred from the whole file
    /// (see ``TableCreator``).
    public var create: Bool
    /// The most bytes one record (and so any field) may take before the import stops with
    /// an error naming its line: an endless input (`/dev/zero`) is stopped, not swallowed.
    public var maxRecordBytes: Int
    /// 512 MiB: a real 200 MB field imports; SQLite stores no value above 1 GB anyway.
    public static let defaultMaxRecordBytes = 512 << 20

    public init(
        table: String, format: Format? = nil, delimiter: UInt8? = nil, header: Bool = true, encoding: Encoding? = nil,
        ignoreUnknown: Bool = false, emptyAsText: Bool = false, mode: Mode = .insert, onError: OnError = .skip,
        atomic: Bool = false, batchSize: Int? = nil, create: Bool = false, maxRecordBytes: Int = ImportOptions.defaultMaxRecordBytes
    ) {
        self.maxRecordBytes = max(1, maxRecordBytes)
        self.table = table
        self.format = format
        self.delimiter = delimiter
        self.header = header
        self.encoding = encoding
        self.ignoreUnknown = ignoreUnknown
        self.emptyAsText = emptyAsText
        self.mode = mode
        self.onError = onError
        self.atomic = atomic
        self.batchSize = batchSize.map { max(1, $0) }
        self.create = create
    }
}

/// One row the import could not take, and why.
public struct ImportRowError: Hashable, Sendable, CustomStringConvertible {
    public let file: String
    public let line: Int
    public let column: String?
    public let reason: String

    package init(file: String, line: Int, column: String?, reason: String) {
        self.file = file
        self.line = line
        self.column = column
        self.reason = reason
    }

    /// Why a NULL is refused in a NOT NULL column, with what made the field NULL (the same on
    /// every engine and path).
    package static let emptyNeedsValue = "needs a value (an empty unquoted field is NULL; --empty-as-text reads it as the empty string)"

    /// `airports.csv line 4: unterminated quote`.
    public var description: String {
        "\(file) line \(line)\(column.map { ", column \($0)" } ?? ""): \(reason)"
    }
}

/// How an import went.
public struct ImportSummary: Hashable, Sendable {
    public var inserted = 0
    public var updated = 0
    public var unchanged = 0
    /// Rows left out on purpose (`--mode ignore` and the key was there).
    public var skipped = 0
    /// Rows refused (bad data or a constraint).
    public var rejected = 0
    /// The first 100 row errors in full.
    public var errors: [ImportRowError] = []
    /// True when it stopped before the end (cancelled or aborted).
    public var stoppedEarly = false
    public var cancelled = false
    /// The line the import stopped before, when it stopped early.
    public var stoppedAtLine: Int?
    /// True when an atomic import was rolled back: nothing was written.
    public var rolledBack = false

    public static let errorsKept = 100

    /// True when rows were read and every one was refused: nothing came in, and the
    /// command-line import ends with status 1 as it does for an import stopped by an error.
    public var rejectedEveryRow: Bool { rejected > 0 && inserted + updated + unchanged + skipped == 0 }

    public init() {}

    /// The summary in one line: `imported 3,376 rows: 3,370 inserted, 6 rejected`.
    public var sentence: String {
        var parts = ["\(inserted.formatted()) inserted"]
        if updated > 0 { parts.append("\(updated.formatted()) updated") }
        if unchanged > 0 { parts.append("\(unchanged.formatted()) unchanged") }
        if skipped > 0 { parts.append("\(skipped.formatted()) skipped") }
        if rejected > 0 { parts.append("\(rejected.formatted()) rejected") }
        let total = inserted + updated + unchanged
        var text = "imported \(total.formatted()) row\(total == 1 ? "" : "s"): " + parts.joined(separator: ", ")
        if rolledBack {
            text = rejected > 0
                ? "nothing imported (all or nothing, and a row was refused): " + parts.dropFirst().joined(separator: ", ")
                : "nothing imported (all or nothing)"
        }
        if cancelled { text += "; cancelled" + (stoppedAtLine.map { " before line \($0)" } ?? "") }
        else if stoppedEarly { text += "; stopped at the first error" + (stoppedAtLine.map { " (line \($0))" } ?? "") }
        return text
    }
}

/// How far an import has come.
public struct ImportProgress: Hashable, Sendable {
    public var rows: Int
    public var bytes: Int
    public var totalBytes: Int
    public var seconds: Double

    public var fraction: Double { totalBytes > 0 ? min(1, Double(bytes) / Double(totalBytes)) : 0 }
    public var rowsPerSecond: Double { seconds > 0 ? Double(rows) / seconds : 0 }
    /// Seconds left at the current pace; nil before there is a pace.
    public var secondsLeft: Double? {
        guard bytes > 0, seconds > 0.2 else { return nil }
        return seconds * Double(totalBytes - bytes) / Double(bytes)
    }
}

/// Why an import could not start (or could not go on at all).
public enum ImportError: Error, Hashable, Sendable, CustomStringConvertible {
    case cannotRead(path: String, reason: String)
    case unknownFormat(path: String)
    case unknownColumns(file: String, columns: [String], table: String)
    /// The file has columns the database fills itself (generated, identity).
    case filledByDatabase(file: String, columns: [String], table: String)
    case noHeader(file: String)
    case noUpsertKey(table: String)
    case store(StoreError)
    /// The import stopped part way (the disk filled, the input could not be read on): what
    /// went wrong, and how many rows it had already written (`atomic`: none stay).
    indirect case stopped(ImportError, imported: Int, atomic: Bool)

    public var description: String {
        switch self {
        case .stopped(let error, let imported, let atomic):
            let reason = error.description.hasSuffix(".") ? error.description : error.description + "."
            if atomic { return reason + " The import stopped there; it was all or nothing, so no row was imported." }
            return reason + " The import stopped there; the \(imported) row\(imported == 1 ? "" : "s") imported before \(imported == 1 ? "stays" : "stay")."
        case .cannotRead(let path, let reason): return "Cannot read \(path): \(reason)."
        case .unknownFormat(let path):
            return "Cannot tell the format of \(path) from its name; say --format csv, tsv, jsonl or json."
        case .unknownColumns(let file, let columns, let table):
            return "\(file) has column\(columns.count == 1 ? "" : "s") \(columns.map { "“\($0)”" }.joined(separator: ", ")) that \(table) does not have. Use --ignore-unknown to leave \(columns.count == 1 ? "it" : "them") out."
        case .filledByDatabase(let file, let columns, let table):
            let many = columns.count > 1
            return "\(file) has column\(many ? "s" : "") \(columns.map { "“\($0)”" }.joined(separator: ", ")) that \(table) fills itself (\(many ? "generated or identity columns" : "a generated or identity column")). Use --ignore-unknown to leave \(many ? "them" : "it") out."
        case .noHeader(let file): return "\(file) is empty: there is no header row."
        case .noUpsertKey(let table):
            return "An upsert into \(table) needs its primary key or a unique column among the file's columns."
        case .store(let error): return error.message
        }
    }
}
