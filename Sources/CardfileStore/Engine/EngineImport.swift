/// An engine's way of putting an import's rows in a table. ``Importer`` reads and maps the
/// file (the same on every engine); an import on an engine hands it each batch.
///
/// One import, one connection of its own: the editor's saves go on beside it. Not atomic,
/// each ``write(_:)`` is a transaction of its own, committed when it returns; atomic, every
/// batch goes into one transaction that ``commit()`` ends (``close()`` without it rolls it
/// back).
package protocol EngineImport: AnyObject {
    /// Writes one batch as the import's mode says. A row the database refuses is reported
    /// with its line and reason, and the batch's other rows go in.
    /// - Throws: ``StoreError`` when the batch could not be written at all (the server gone).
    ///   Nothing of it is committed, unless the connection was lost while its `COMMIT` was
    ///   under way: whether that one went in is then not known.
    func write(_ rows: [Importer.PendingRow]) throws -> ImportBatchOutcome

    /// Commits an atomic import's one transaction.
    func commit() throws

    /// Ends the import and its connection; an atomic import not committed is rolled back.
    func close()
}

/// What one batch of an import did, row by row.
package struct ImportBatchOutcome {
    package var inserted = 0
    package var updated = 0
    package var unchanged = 0
    package var skipped = 0
    package var rejected = 0
    /// The first refused rows, at most ``ImportSummary/errorsKept``.
    package var errors: [ImportRowError] = []

    package init() {}

    /// Counts a refused row, keeping its error while fewer than ``ImportSummary/errorsKept`` are.
    package mutating func reject(_ error: ImportRowError) {
        rejected += 1
        if errors.count < ImportSummary.errorsKept { errors.append(error) }
    }
}
