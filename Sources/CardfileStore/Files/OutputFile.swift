import Foundation

/// A file a command writes (an export, a copy of the database): the one way Cardfile
/// creates or replaces a file, so every writer makes the same checks.
///
/// - The open database (and its journal, WAL and shared memory, by identity, so links and
///   other spellings count) is never a target.
/// - An existing file is replaced only when the caller says so (`--force`, `:export!`).
/// - A folder is never a target.
/// - Bytes go to a hidden temporary file beside the target, which takes the target's place
///   only in ``commit()``: a failed or cancelled write leaves whatever was there before.
/// - A target that is not a regular file (a FIFO, `/dev/null`, a terminal) is written in
///   place: there is nothing to replace and no folder to put a temporary file in.
///
/// One thread at a time uses it (the one that writes the export).
public final class OutputFile: @unchecked Sendable {
    /// Where the bytes end up.
    public let path: String
    private let handle: FileHandle
    /// The temporary file renamed over ``path`` on commit; nil when writing in place. (A
    /// copy of a database is written there by SQLite itself.)
    let temporaryPath: String?
    private var finished = false

    /// True when `path` names, in the database's own folder (whatever the spelling), one of
    /// the files SQLite keeps beside it.
    private static func isCompanion(_ path: String, of database: String) -> Bool {
        guard let resolved = realpath(database, nil) else { return false }
        let database = String(cString: resolved)
        free(resolved)
        let name = PathText.name(of: path)
        guard FileIdentity.companionSuffixes.contains(where: { PathText.name(of: database) + $0 == name }),
              let folder = FileIdentity(path: PathText.folder(of: path)) else { return false }
        return folder == FileIdentity(path: PathText.folder(of: database))
    }

    /// Opens `path` for writing.
    ///
    /// - Parameters:
    ///   - replacing: an existing regular file may be replaced.
    ///   - protecting: database files that must never be written over (their journals count).
    /// - Throws: ``StoreError/outputRefused(path:_:)`` saying why.
    public init(path: String, replacing: Bool, protecting databases: [String]) throws(StoreError) {
        self.path = path
        let protected = databases.reduce(into: Set<FileIdentity>()) { $0.formUnion(FileIdentity.databaseFiles(of: $1)) }
        var info = stat()
        if stat(path, &info) == 0 {
            if let identity = FileIdentity(path: path), protected.contains(identity) {
                throw StoreError.outputRefused(path: path, .isTheDatabase)
            }
            let kind = info.st_mode & S_IFMT
            if kind == S_IFDIR { throw StoreError.outputRefused(path: path, .isAFolder) }
            if kind != S_IFREG {
                guard let handle = FileHandle(forWritingAtPath: path) else {
                    throw StoreError.outputRefused(path: path, .cannotWrite(Self.lastError()))
                }
                self.handle = handle
                temporaryPath = nil
                return
            }
            if !replacing { throw StoreError.outputRefused(path: path, .exists) }
        } else if errno != ENOENT {
            throw StoreError.outputRefused(path: path, .cannotWrite(Self.lastError()))
        } else if databases.contains(where: { Self.isCompanion(path, of: $0) }) {
            // A rollback-journal database has no -wal or -shm file, and no -journal between
            // writes; a file made under one of those names would be read as its log later.
            throw StoreError.outputRefused(path: path, .isTheDatabase)
        }
        let folder = PathText.folder(of: path)
        let temporary = folder + "/.\(PathText.name(of: path)).\(UUID().uuidString.prefix(8)).part"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            let reason = errno == ENOENT ? "no such folder" : Self.lastError()
            throw StoreError.outputRefused(path: path, .cannotWrite(reason))
        }
        handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        temporaryPath = temporary
    }

    /// Appends `bytes`.
    /// - Throws: ``StoreError/outputRefused(path:_:)`` with the system's reason (a full disk).
    public func write(_ bytes: [UInt8]) throws(StoreError) {
        do {
            try handle.write(contentsOf: Data(bytes))
        } catch {
            throw StoreError.outputRefused(path: path, .cannotWrite(Self.reason(error)))
        }
    }

    /// Puts the written bytes in place of ``path``.
    public func commit() throws(StoreError) {
        guard !finished else { return }
        finished = true
        do {
            if temporaryPath != nil { try handle.synchronize() }
            try handle.close()
        } catch {
            discardTemporary()
            throw StoreError.outputRefused(path: path, .cannotWrite(Self.reason(error)))
        }
        guard let temporary = temporaryPath else { return }
        guard rename(temporary, path) == 0 else {
            let reason = Self.lastError()
            discardTemporary()
            throw StoreError.outputRefused(path: path, .cannotWrite(reason))
        }
    }

    /// Drops what was written: ``path`` keeps what it held before.
    public func discard() {
        guard !finished else { return }
        finished = true
        try? handle.close()
        discardTemporary()
    }

    deinit { discard() }

    private func discardTemporary() {
        if let temporaryPath { unlink(temporaryPath) }
    }

    private static func lastError() -> String { String(cString: strerror(errno)) }

    /// The system's words for a failed write (Foundation wraps the `errno` of a full disk).
    private static func reason(_ error: any Error) -> String {
        let error = error as NSError
        let posix = error.domain == NSPOSIXErrorDomain ? error : error.userInfo[NSUnderlyingErrorKey] as? NSError
        if let posix, posix.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(posix.code))) }
        return error.localizedDescription
    }
}
