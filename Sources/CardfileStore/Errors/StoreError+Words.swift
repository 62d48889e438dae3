import Foundation
import GRDB

// Every sentence the store shows a person is written here, so the wording stays consistent.

extension StoreError: CustomStringConvertible, LocalizedError {
    /// What happened, in words a person understands, with what they can do about it.
    public var message: String {
        switch self {
        case .directoryMissing(let path):
            return "The folder \(Self.folder(of: path)) does not exist, so the file \(path) cannot be created there."
        case .fileNotFound(let path):
            return "There is no database file at \(path). Nothing was created; --create makes a new, empty database there."
        case .notADatabase(let path):
            return "\(Self.file(path)) is not an SQLite database."
        case .emptyFile(let path):
            return "\(Self.file(path)) is empty, not an SQLite database; it was left as it is. Open it with --create to make it a database."
        case .diskFull(let path):
            return "There is no room left for \(path): its disk is full (or it reached its size limit). The write was undone; free some space and try again."
        case .corrupt(let path):
            return "\(Self.file(path)) is damaged: SQLite reports that its content is malformed. Nothing was changed; restore it from a backup or recover it with `sqlite3 .recover`."
        case .locked(let path):
            return "\(Self.file(path)) is locked by another program. Close that program's transaction and open it again."
        case .busy:
            return "The database is busy: another program kept it locked for longer than the wait allows. Nothing was written and your changes are kept; save again to retry."
        case .serverUnreachable(let server, let reason):
            return "The server cannot be reached (\(server): \(reason))."
        case .saveOutcomeUnknown(let server):
            return "The connection to the server (\(server)) was lost while it was saving new records, so whether they were saved is not known. Once it answers, look for them in the list before saving again: saving again may store them twice."
        case .busyReading:
            return "The database is locked by another program that is writing to it, so it could not be read just now. Nothing was changed; try again in a moment."
        case .lockedInProcess:
            return "The database is locked by another statement of this program (a table lock, not another program's lock). Nothing was written and your changes are kept; save again to retry."
        case .notOnEngine(let feature, let engine):
            return "\(feature) is not available on \(engine) yet."
        case .readOnly(.requested):
            return "The database was opened read-only, so changes cannot be saved."
        case .readOnly(.fileNotWritable):
            return "The database file or its folder is not writable, so it was opened read-only and changes cannot be saved."
        case .readOnly(.snapshotInReadOnlyFolder):
            return "The database is in WAL mode in a read-only folder, so it was opened as a read-only snapshot and changes cannot be saved."
        case .noSuchTable(let table):
            return "There is no table named \(Self.quote(table))."
        case .noSuchField(let table, let field):
            return "The table \(Self.quote(table)) has no field named \(Self.quote(field))."
        case .noSuchObject(let id):
            return "The record \(id) no longer exists."
        case .tableNotEditable(let table, isView: true):
            return "Records of the view \(Self.quote(table)) cannot be told apart (it shows no table's whole key), so it can only be read."
        case .tableNotEditable(let table, isView: false):
            return "Records of \(Self.quote(table)) cannot be told apart (the table has no key and its rowid is hidden by columns), so it can only be read."
        case .viewNotWritable(let view, let kind?):
            return "Cannot \(Self.viewRefusal(kind)): view \(Self.quote(view)) has no INSTEAD OF \(kind.rawValue) trigger."
        case .viewNotWritable(let view, nil):
            return "\(Self.quote(view)) is a view: imports and batch changes write to tables, not views."
        case .saveNotAllowed(let context):
            return "\(context.name) is a scratch context: its changes are never saved."
        case .validationFailed, .conflicts:
            return message(notDone: "Not saved")
        case .historyNotKept(let count) where count == 0:
            return "That change named no records the history could keep (a TRUNCATE names none, and a table with row security keeps its values to itself), so it cannot be undone."
        case .historyNotKept(let count):
            return "That change (\(count) record\(count == 1 ? "" : "s")) was too large for the history to keep its values, so it cannot be undone."
        case .historyOutdated(let table):
            return "That change cannot be written back: columns of \(table) were renamed or dropped since it was made. Its values are in :history."
        case .invalidFilter(let message, let offset):
            return "The filter cannot be read at character \(offset + 1): \(message)."
        case .cannotOpen(let path, let detail):
            return "\(Self.file(path)) cannot be opened: \(detail)."
        case .outputRefused(let path, .isTheDatabase):
            return "\(path) is the open database (or its journal): nothing was written. Write to another file."
        case .outputRefused(let path, .exists):
            return "\(path) already exists and was left as it is (--force, or :export! in the editor, replaces it)."
        case .outputRefused(let path, .isAFolder):
            return "\(path) is a folder: nothing was written. Name a file."
        case .outputRefused(let path, .notADemo(let what)):
            return "\(path) is \(what), not a Cardfile demo database, so it was left as it is. Name a new file."
        case .outputRefused(let path, .cannotWrite(let reason)):
            return "Cannot write \(path): \(reason). Nothing was replaced."
        case .fileGone(let path, .replaced):
            return "The file was replaced: another file now stands at \(path). Nothing more is written there and your edits are kept; :saveas PATH saves them with a copy of the database elsewhere."
        case .fileGone(let path, .deleted):
            return "The file was deleted: nothing stands at \(path) any more. Nothing more is written there and your edits are kept; :saveas PATH saves them with a copy of the database elsewhere."
        case .sqlRefused(let message, let offset?, let engine):
            return "\(engine) refused the statement at character \(offset + 1): \(message). Nothing was changed."
        case .sqlRefused(let message, nil, let engine):
            return "\(engine) refused the statement: \(message). Nothing was changed."
        case .statementNotRun(let reason):
            return reason
        case .queryCancelled:
            return "The query was cancelled. Nothing was changed."
        case .database(_, let message):
            return "The database reported an error: \(message)."
        }
    }

    /// The message for a refusal of something other than a save (`"Not deleted"`): a
    /// sentence the store starts with "Not saved" starts with `notDone` instead, any other is
    /// put after it. The prefix is never doubled.
    public func message(notDone: String) -> String {
        switch self {
        case .validationFailed(let failures):
            let lines = failures.map { "• " + $0.message }
            let count = failures.count == 1 ? "1 problem" : "\(failures.count) problems"
            return "\(notDone): \(count).\n" + lines.joined(separator: "\n")
        case .conflicts(let conflicts):
            let names = conflicts.map(\.objectID.description).joined(separator: ", ")
            let deleted = conflicts.allSatisfy { $0.kind == .updateDelete }
            let what = deleted ? "deleted" : "changed"
            return conflicts.count == 1
                ? "\(notDone): \(names) was \(what) elsewhere since you opened it. \(deleted ? "Restore it or accept the deletion." : "Choose which values to keep.")"
                : "\(notDone): \(conflicts.count) records were \(what) elsewhere since you opened them (\(names)). \(deleted ? "Restore them or accept the deletions." : "Choose which values to keep.")"
        default:
            return "\(notDone): \(message)"
        }
    }

    public var description: String { message }
    public var errorDescription: String? { message }

    /// The sentence for one validation failure.
    static func describe(_ failure: ValidationFailure) -> String {
        let field = failure.field.map(quote) ?? "This record"
        // (A failure of a value meant for many records names no record: the table alone.)
        let label = recordLabel(failure.objectID)
        let subject = label.isEmpty ? failure.objectID.table : "\(failure.objectID.table) \(label)"
        let sentence: String
        switch failure.rule {
        case .notNull:
            sentence = "\(field) needs a value."
        case .required:
            sentence = "\(field) cannot be empty."
        case .type(let affinity):
            let wanted: String
            switch affinity {
            case .integer: wanted = "a whole number"
            case .real, .numeric: wanted = "a number"
            case .text: wanted = "text"
            case .blob: wanted = "a value"
            }
            if case .text(let text)? = failure.value, case .failure(let refusal) = affinity.number(from: text), refusal != .notANumber, refusal != .notWhole {
                sentence = "\(field) must be \(wanted); \(shownValue(failure.value) ?? "it") \(refusal.words)."
            } else {
                sentence = "\(field) must be \(wanted)\(shownValue(failure.value).map { "; \($0) is not" } ?? "")."
            }
        case .notANumber:
            sentence = "\(field) is not a number (NaN), which the database cannot store."
        case .length(let min, let max):
            sentence = "\(field) must be \(bounds(min.map(Double.init), max.map(Double.init), unit: "characters long"))."
        case .range(let min, let max):
            sentence = "\(field) must be \(bounds(min, max, unit: nil))\(shownValue(failure.value).map { "; it is \($0)" } ?? "")."
        case .check(let expression):
            sentence = "\(field) breaks the table's rule \(expression)."
        case .unique(let columns):
            let names = columns.map(quote).joined(separator: " and ")
            sentence = "Another record already has this \(names)\(shownValue(failure.value).map { " (\($0))" } ?? "")."
        case .foreignKey(let parent):
            sentence = "\(field) refers to a record of \(quote(parent)) that does not exist."
        case .referenced(let child):
            sentence = "Records of \(quote(child)) refer to this one, so it cannot be deleted."
        case .readOnlyField:
            sentence = "\(field) is set by the database (a key or a computed column) and cannot be edited."
        case .readOnlyTable:
            sentence = "Records of this table cannot be told apart, so they cannot be edited."
        case .viewNotWritable(.update) where failure.field != nil:
            sentence = "\(field) is not covered by an INSTEAD OF UPDATE trigger of the view, so it cannot be edited."
        case .viewNotWritable(let kind):
            sentence = "Cannot \(viewRefusal(kind)): the view has no INSTEAD OF \(kind.rawValue) trigger."
        case .ignoredByDatabase:
            sentence = "The database ignored this record (a trigger refused it)."
        case .refusedValue(let reason):
            sentence = "\(field) was refused by the database: \(reason)."
        }
        return "\(subject): \(sentence)"
    }

    /// Maps an SQLite error met while opening or reading `path`.
    static func opening(_ error: DatabaseError, path: String) -> StoreError {
        switch error.resultCode {
        case .SQLITE_NOTADB: return .notADatabase(path: path)
        case .SQLITE_CORRUPT: return .corrupt(path: path)
        case .SQLITE_BUSY, .SQLITE_LOCKED: return .locked(path: path)
        case .SQLITE_READONLY: return .readOnly(.fileNotWritable)
        case .SQLITE_CANTOPEN: return .cannotOpen(path: path, detail: error.message ?? "SQLite could not open it")
        default: return .database(code: error.extendedResultCode.rawValue, message: error.message ?? "unknown error")
        }
    }

    /// Maps an SQLite error met while working with an open database.
    static func working(_ error: DatabaseError, path: String) -> StoreError {
        switch error.resultCode {
        case .SQLITE_BUSY: return .busy
        case .SQLITE_LOCKED: return .lockedInProcess
        case .SQLITE_READONLY: return .readOnly(.fileNotWritable)
        case .SQLITE_CORRUPT: return .corrupt(path: path)
        case .SQLITE_NOTADB: return .notADatabase(path: path)
        case .SQLITE_FULL: return .diskFull(path: path)
        default: return .database(code: error.extendedResultCode.rawValue, message: error.message ?? "unknown error")
        }
    }

    private static func recordLabel(_ id: ObjectID) -> String {
        switch id.key {
        case .permanent(let values): return values.map(\.description).joined(separator: "/")
        case .temporary: return "(new)"
        }
    }

    private static func shownValue(_ value: Value?) -> String? {
        switch value {
        case .text(let text):
            let clipped = text.count > 40 ? String(text.prefix(39)) + "…" : text
            return "“\(clipped)”"
        case .integer, .real: return value!.description
        default: return nil
        }
    }

    private static func bounds(_ min: Double?, _ max: Double?, unit: String?) -> String {
        func number(_ value: Double) -> String {
            value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
        }
        let suffix = unit.map { " " + $0 } ?? ""
        switch (min, max) {
        case let (min?, max?): return "between \(number(min)) and \(number(max))\(suffix)"
        case let (min?, nil): return "at least \(number(min))\(suffix)"
        case let (nil, max?): return "at most \(number(max))\(suffix)"
        case (nil, nil): return "valid"
        }
    }

    static func quote(_ name: String) -> String { "“\(name)”" }

    /// What a view without a trigger for `kind` refuses.
    private static func viewRefusal(_ kind: ViewWrites.Kind) -> String {
        switch kind {
        case .insert: return "add"
        case .update: return "change"
        case .delete: return "delete"
        }
    }

    private static func file(_ path: String) -> String {
        "The file \(path)"
    }

    private static func folder(of path: String) -> String {
        PathText.folder(of: path)
    }
}

extension Affinity.NumberRefusal {
    /// What is wrong with the number, after the number itself: “1e400” *is too large for a
    /// REAL (…)*. The two plain refusals depend on the column (see ``words(for:)``).
    public var words: String {
        switch self {
        case .notANumber: "is not a number"
        case .notWhole: "is not a whole number"
        case .beyondInteger: "is beyond a 64-bit integer (a REAL would round it; a column without a type keeps it as text)"
        case .tooLarge: "is too large for a REAL (the largest is about 1.8e308)"
        case .tooSmall: "is too small for a REAL (it would be stored as 0)"
        }
    }

    /// The words for a column of `affinity`: an INTEGER column asks for a whole number.
    public func words(for affinity: Affinity) -> String {
        switch self {
        case .notANumber, .notWhole: affinity == .integer ? Self.notWhole.words : Self.notANumber.words
        default: words
        }
    }
}
