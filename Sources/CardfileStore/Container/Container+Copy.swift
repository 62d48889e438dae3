import Foundation
import GRDB

extension Container {
    /// Writes a copy of the database, as last saved, to `path`, with the pending changes of
    /// `contexts` saved into the copy; returns how many records those changes wrote.
    ///
    /// This is how edits are kept when the file was replaced or deleted under the editor
    /// (``checkFile()``): the copy is read through the connections that still hold the file
    /// the container opened. The copy goes through ``OutputFile``: never over the database,
    /// over an existing file only when `replacing`, and in place only once complete, so a
    /// failure leaves nothing behind. The contexts keep their changes.
    /// - Throws: ``StoreError/outputRefused(path:_:)``, a validation failure of the changes in
    ///   the copy, or a database error; the target is then as it was.
    @discardableResult
    public func saveCopy(to path: String, replacing: Bool, with contexts: [ObjectContext]) throws(StoreError) -> Int {
        // A gone file is sealed first: its log must not wait for the next poll.
        _ = checkFile()
        let output = try OutputFile(path: path, replacing: replacing, protecting: [self.path])
        guard let temporary = output.temporaryPath else {
            output.discard()
            throw StoreError.outputRefused(path: path, .cannotWrite("a copy of a database must be a regular file"))
        }
        do throws(StoreError) {
            try storeErrors(path: core.path) {
                let copy = { (db: Database) in try db.execute(sql: "VACUUM INTO ?", arguments: [temporary]) }
                if let writer = core.writer {
                    try writer.writeWithoutTransaction(copy)
                } else if let reader = core.reader {
                    try reader.unsafeRead(copy)
                } else {
                    throw StoreError.notOnEngine(feature: "A copy of the database", engine: core.engine?.name ?? "this engine")
                }
            }
            let written = try Self.apply(contexts, toCopyAt: temporary)
            try output.commit()
            return written
        } catch {
            output.discard()
            for suffix in ["-wal", "-shm", "-journal"] { unlink(temporary + suffix) }
            throw error
        }
    }

    /// Saves the pending inserts, updates and deletes of `contexts` into the database at
    /// `path` (a fresh copy, so nothing there conflicts), then closes it.
    private static func apply(_ contexts: [ObjectContext], toCopyAt path: String) throws(StoreError) -> Int {
        let copy = try Container(path: path, options: StoreOptions(createIfMissing: false))
        let target = copy.newBackgroundContext(name: "copy")
        target.mergePolicy = .overwrite
        var written = 0
        for context in contexts {
            for id in context.insertedObjects {
                _ = try target.insert(into: id.table, values: try persistent(context.changedValues(of: id), of: id.table, in: copy))
                written += 1
            }
            for id in context.updatedObjects {
                let values = try persistent(context.changedValues(of: id), of: id.table, in: copy)
                guard !values.isEmpty else { continue }
                try target.update(id, values: values)
                written += 1
            }
            for id in context.deletedObjects {
                try target.delete(id)
                written += 1
            }
        }
        try target.save()
        return written
    }

    /// The values of table columns (transient fields stay behind).
    private static func persistent(_ values: [String: Value], of table: String, in container: Container) -> [String: Value] {
        guard let schema = container.schema.table(named: table) else { return values }
        return values.filter { schema.column(named: $0.key) != nil }
    }
}
