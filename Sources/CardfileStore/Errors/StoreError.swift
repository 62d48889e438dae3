/// Why a read-only container cannot write.
public enum ReadOnlyReason: Hashable, Sendable {
    /// The caller opened the file read-only.
    case requested
    /// The file (or its folder, which must hold the write-ahead log) is not writable.
    case fileNotWritable
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
    /// The file is an SQLite database whose content is damaged.
    case corrupt(path: String)
    /// Another connection held a lock on the file for longer than the busy timeout while the
    /// file was being opened.
    case locked(path: String)
    /// A write waited longer than the busy timeout for another connection's lock. Nothing was
    /// written and every pending change is kept: the same save can be retried.
    case busy
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
    case tableNotEditable(String)
    /// A temporary (scratch) context was asked to save.
    case saveNotAllowed(ContextIdentity)
    /// The save was refused before anything was written: every failure, per object and field.
    case validationFailed([ValidationFailure])
    /// The save met changes made elsewhere and the merge policy is `.error`. Nothing was
    /// written and the context is unchanged.
    case conflicts([MergeConflict])
    /// A filter expression could not be read.
    case invalidFilter(message: String, offset: Int)
    /// The file could not be opened for another reason; `detail` is SQLite's.
    case cannotOpen(path: String, detail: String)
    /// Any other SQLite failure, with its extended result code and message.
    case database(code: Int32, message: String)
}
