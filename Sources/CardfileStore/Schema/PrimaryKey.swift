import GRDB

/// How the rows of a table are identified; this is what an ``ObjectID`` carries.
public enum PrimaryKey: Hashable, Sendable {
    /// An `INTEGER PRIMARY KEY` column, which is an alias of the rowid.
    case rowidAlias(column: String)
    /// No declared key: rows are identified by the implicit rowid, read through `accessor`
    /// (`rowid`, or `_rowid_` / `oid` when a column shadows `rowid`).
    case implicitRowid(accessor: String)
    /// A declared key other than a rowid alias (text, composite) in a table that has a rowid.
    case columns([String])
    /// The key of a `WITHOUT ROWID` table.
    case withoutRowid([String])
    /// A table whose rowid is shadowed by columns named `rowid`, `_rowid_` and `oid`, with no
    /// declared key: its rows cannot be told apart, so Cardfile only reads it.
    case unidentifiable

    /// The SQL expressions that select the key, in key order.
    public var keyExpressions: [String] {
        switch self {
        case .rowidAlias(let column): return [column.quotedIdentifier]
        case .implicitRowid(let accessor): return [accessor]
        case .columns(let columns), .withoutRowid(let columns): return columns.map(\.quotedIdentifier)
        case .unidentifiable: return []
        }
    }

    /// The key's column names, empty for an implicit rowid.
    public var columnNames: [String] {
        switch self {
        case .rowidAlias(let column): return [column]
        case .columns(let columns), .withoutRowid(let columns): return columns
        case .implicitRowid, .unidentifiable: return []
        }
    }

    /// True when the key is the rowid, so SQLite's change hooks report it directly.
    public var isRowid: Bool {
        switch self {
        case .rowidAlias, .implicitRowid: return true
        default: return false
        }
    }
}
