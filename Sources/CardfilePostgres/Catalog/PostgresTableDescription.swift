/// A table's or view's columns and key, and why it (or a column) cannot be edited.
public struct PostgresTableDescription: Sendable, Equatable {
    public var relation: PostgresRelation
    public var columns: [PostgresTableColumn]
    /// The primary key's columns in key order; empty when there is none.
    public var primaryKey: [String]

    /// Why no record of it can be changed here, or nil when records can be: the status bar
    /// shows it. (An engine keys every record it edits; a table without a primary key has no
    /// stable key in PostgreSQL, whose row addresses move on every update.)
    public var readOnlyReason: String? {
        let what = relation.kind == .view ? "view" : "table"
        switch relation.kind {
        case .materializedView:
            return "a materialized view is read-only (REFRESH MATERIALIZED VIEW rebuilds it)"
        case .view where !relation.canUpdate && !relation.canInsert && !relation.canDelete:
            return "this view cannot be written through (it is not a simple view of one table, and has no INSTEAD rules or triggers)"
        default:
            break
        }
        if primaryKey.isEmpty {
            return "this \(what) has no primary key, so a record cannot be told apart from an identical one"
        }
        if !relation.canUpdate && !relation.canInsert && !relation.canDelete {
            return "this user may not change this \(what) (GRANT UPDATE, INSERT, DELETE gives the right)"
        }
        return nil
    }
}

/// One column of a PostgreSQL table or view.
public struct PostgresTableColumn: Sendable, Equatable {
    public enum Identity: String, Sendable {
        case none = ""
        case always = "a"
        case byDefault = "d"
    }

    public var name: String
    /// The type as PostgreSQL writes it (`numeric(10,2)`, `character varying(40)`, `text[]`).
    public var typeName: String
    /// `pg_type.typcategory`: `N` numbers, `S` text, `B` boolean, `D` dates and times, `U`
    /// user types such as uuid and json, `A` arrays, `E` enums.
    public var category: Character
    public var isNotNull: Bool
    /// The default's expression as PostgreSQL prints it, or nil.
    public var defaultExpression: String?
    public var identity: Identity
    /// A stored generated column (`GENERATED ALWAYS AS (…) STORED`).
    public var isGenerated: Bool
    /// The column's base type (through domains) without its modifier, as `format_type(oid, -1)`
    /// writes it (`character varying`, `bpchar`, `numeric`, `public.mood`; quoted and
    /// qualified where needed): what a value sent as text is cast to. The column's own
    /// assignment then checks a length, a domain's rules or rounds a scale, as it does for
    /// psql; a cast to the modified type would cut a text silently instead.
    public var castType: String
    /// Which ``Value`` holds this column's values.
    public var kind: Kind

    /// How a column's values travel: the numbers, booleans, bytes and plain text PostgreSQL
    /// sends in its binary form, anything else (dates, uuids, json, arrays, enums, ranges…) as
    /// the text the type prints and reads back. A domain travels as its base type.
    public enum Kind: Sendable, Equatable {
        case integer
        case real
        /// `numeric`: exact, as its text.
        case decimal
        case boolean
        case bytes
        case text
        /// Read as `::text`, written as text the server casts.
        case textual

        /// By the base type's object id: the built-in types' ids are fixed, a user's type
        /// named like one (an enum called `numeric`) is not taken for it.
        init(baseType oid: Int64) {
            switch oid {
            case 20, 21, 23: self = .integer           // int8, int2, int4
            case 700, 701: self = .real                // float4, float8
            case 1700: self = .decimal                 // numeric
            case 16: self = .boolean                   // bool
            case 17: self = .bytes                     // bytea
            case 25, 1043, 1042, 19: self = .text      // text, varchar, bpchar, name
            default: self = .textual
            }
        }
    }

    /// Why this column's values cannot be typed in, or nil: identity and generated columns are
    /// the server's to fill.
    public var readOnlyReason: String? {
        if isGenerated { return "\(name) is computed by the database (a generated column)" }
        switch identity {
        case .always, .byDefault: return "\(name) is numbered by the database (an identity column)"
        case .none: return nil
        }
    }
}
