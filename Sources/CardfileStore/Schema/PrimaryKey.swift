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
    /// No key to write by: a table whose rowid is shadowed by columns named `rowid`, `_rowid_`
    /// and `oid` with no declared key, or a view that exposes no base table's whole key.
    /// Cardfile only reads it, and names each row by its content: every column (compared as
    /// BINARY, with its storage class) and its ordinal among identical rows, which ``TableSchema/fromSQL`` computes as
    /// ``duplicateColumn``. So two identical rows are two rows, as SQL shows them.
    case unidentifiable(columns: [String])

    /// Each column as BINARY and its storage class: the integer 1 and the real 1.0, which SQL
    /// calls equal, are different content.
    static func contentTerms(_ columns: [String]) -> [String] {
        columns.flatMap { ["\($0.quotedIdentifier) COLLATE BINARY", "typeof(\($0.quotedIdentifier))"] }
    }

    /// The name of the ordinal among identical rows in the read source of an unidentifiable
    /// table; chosen to stay clear of real column names.
    static let duplicateColumn = "__cf_duplicate"

    /// The SQL expressions that select the key, in key order.
    public var keyExpressions: [String] {
        switch self {
        case .rowidAlias(let column): return [column.quotedIdentifier]
        case .implicitRowid(let accessor): return [accessor]
        case .columns(let columns), .withoutRowid(let columns): return columns.map(\.quotedIdentifier)
        case .unidentifiable(let columns):
            return Self.contentTerms(columns) + [Self.duplicateColumn.quotedIdentifier]
        }
    }

    /// The key's column names, empty for an implicit rowid and an unidentifiable table.
    public var columnNames: [String] {
        switch self {
        case .rowidAlias(let column): return [column]
        case .columns(let columns), .withoutRowid(let columns): return columns
        case .implicitRowid, .unidentifiable: return []
        }
    }

    /// True for ``unidentifiable(columns:)``.
    public var isUnidentifiable: Bool {
        if case .unidentifiable = self { return true }
        return false
    }

    /// True when the key is the rowid, so SQLite's change hooks report it directly.
    public var isRowid: Bool {
        switch self {
        case .rowidAlias, .implicitRowid: return true
        default: return false
        }
    }
}
