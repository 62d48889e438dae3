/// Why a read-only container cannot write.
public enum ReadOnlyReason: Hashable, Sendable {
    /// The caller opened the file read-only.
    case requested
    /// The file (or its folder, which must hold the write-ahead log) is not writable.
    case fileNotWritable
    /// A WAL-mode file in a folder that cannot hold its shared-memory file: read as an
    /// immutable snapshot, which does not see changes other programs make meanwhile.
    case snapshotInReadOnlyFolder
}

/// Why a file was not written (see ``OutputFile``).
public enum OutputRefusal: Hashable, Sendable {
    /// The target is the database being read, or its journal, WAL or shared memory.
    case isTheDatabase
    /// The target exists and replacing it was not asked for.
    case exists
    /// The target is a folder.
    case isAFolder
    /// The target is something a demo database must not replace (`what` names it: another
    /// database, a text file).
    case notADemo(what: String)
    /// The system refused (the reason in its words: permission denied, no space left).
    case cannotWrite(String)
}

/// What happened to an open database's file, found by comparing the path's identity with
/// the file the container opened.
public enum FileGone: Hashable, Sendable {
    /// Another file now stands at the path (`mv other.sqlite db.sqlite`).
    case replaced
    /// Nothing stands at the path any more.
    case deleted
}

/// Everything the store can fail with. ``StoreError/message`` turns each case into words a
/// person understands; that wording lives in one file (`StoreError+Words.swift`).
///
/// Statement arguments (record values) never appear in these errors' SQLite details.
public enum StoreError: Error, Hashable, Sendable {
    /// The folder that should hold the database file does not exist.
    case directoryMissing(path: String)
    /// The database file does not exist and the caller did not ask to create it.
    case fileNotFound(path: String)
    /// The file exists but is not an SQLite database.
    case notADatabase(path: String)
    /// The file is empty: an SQLite database only once the caller asks to create one.
    case emptyFile(path: String)
    /// The file is an SQLite database whose content is damaged.
    case corrupt(path: String)
    /// The disk holding the database is full (or the database reached its size limit).
    case diskFull(path: String)
    /// Another connection held a lock on the file for longer than the busy timeout while the
    /// file was being opened.
    case locked(path: String)
    /// A write waited longer than the busy timeout for another connection's lock. Nothing was
    /// written and every pending change is kept: the same save can be retried.
    case busy
    /// The database server could not be reached, or the connection to it was lost (`reason`
    /// says how). Nothing was written and every pending change is kept: the engine connects
    /// again, waiting longer after each failure, and the same save can be retried.
    case serverUnreachable(server: String, reason: String)
    /// The connection was lost while the server committed a save that inserted records, and
    /// the server could not be asked since whether it did: the records may be stored. Saving
    /// again could store them twice, so it is not done without the person.
    case saveOutcomeUnknown(server: String)
    /// A read waited longer than the busy timeout for another program's commit to a
    /// rollback-journal file (WAL readers never wait). Nothing changed; read again later.
    case busyReading
    /// A write met a lock held inside this process (SQLite's `SQLITE_LOCKED`: a conflict with
    /// another statement or shared-cache connection of this program, not another program's
    /// lock). Nothing was written and every pending change is kept.
    case lockedInProcess
    /// The container cannot write.
    case readOnly(ReadOnlyReason)
    /// No table with this name.
    case noSuchTable(String)
    /// No column or field with this name in the table.
    case noSuchField(table: String, field: String)
    /// The object is not in the context or the store.
    case noSuchObject(ObjectID)
    /// The table's rows cannot be told apart (no key, rowid shadowed), so it cannot be edited.
    /// `isView`: the table is a view that shows no base table's whole key.
    case tableNotEditable(String, isView: Bool = false)
    /// The view has no `INSTEAD OF` trigger for `kind`; with nil, the operation (an import, a
    /// batch) writes tables only.
    case viewNotWritable(view: String, kind: ViewWrites.Kind?)
    /// A temporary (scratch) context was asked to save.
    case saveNotAllowed(ContextIdentity)
    /// The save was refused before anything was written: every failure, per object and field.
    case validationFailed([ValidationFailure])
    /// The save met changes made elsewhere and the merge policy is `.error`. Nothing was
    /// written and the context is unchanged.
    case conflicts([MergeConflict])
    /// A filter expression could not be read.
    case invalidFilter(message: String, offset: Int)
    /// A change too large for the history's cap was listed without its records, so it
    /// cannot be undone.
    case historyNotKept(count: Int)
    /// A journaled change of `table` cannot be written back: the table's columns were renamed
    /// or dropped since it was made.
    case historyOutdated(table: String)
    /// The file could not be opened for another reason; `detail` is SQLite's.
    case cannotOpen(path: String, detail: String)
    /// A file was not written, and whatever stood at `path` is as it was.
    case outputRefused(path: String, OutputRefusal)
    /// The open database's file was replaced or deleted under the container: nothing more is
    /// written through its path (which now names another file, or none), and every pending
    /// change is kept.
    case fileGone(path: String, FileGone)
    /// The engine (`engine`, by name) refused a statement typed on the SQL screen: its
    /// message, and where in the text (in characters) when the engine says.
    case sqlRefused(message: String, offset: Int?, engine: String = "SQLite")
    /// A statement the SQL screen does not run, and why.
    case statementNotRun(reason: String)
    /// A query was cancelled before it finished; nothing was changed.
    case queryCancelled
    /// Any other SQLite failure, with its extended result code and message.
    case database(code: Int32, message: String)
    /// A feature built on SQLite's own connections, asked of a container on another engine.
    case notOnEngine(feature: String, engine: String)
}
