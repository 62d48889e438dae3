import Foundation

/// A file as the system knows it (device and inode), whatever path or link names it.
public struct FileIdentity: Hashable, Sendable {
    public let device: UInt64
    public let inode: UInt64

    /// The identity of what `path` names now (links followed), or nil when nothing is there.
    public init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }

    /// The identity of an open file descriptor, or nil when it cannot be read.
    public init?(descriptor: Int32) {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }

    /// What SQLite appends to a database's name for the files it keeps beside it.
    public static let companionSuffixes = ["-wal", "-shm", "-journal"]

    /// The identities of the database at `database` and of the files that go with it, for
    /// those that exist.
    public static func databaseFiles(of database: String) -> Set<FileIdentity> {
        Set(([""] + companionSuffixes).compactMap { FileIdentity(path: database + $0) })
    }
}
