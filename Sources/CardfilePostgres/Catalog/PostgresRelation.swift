/// A table or view of a PostgreSQL database, as the tables screen lists it.
public struct PostgresRelation: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case table = "r"
        case partitionedTable = "p"
        case view = "v"
        case materializedView = "m"
        case foreignTable = "f"
    }

    /// The relation's object id (`pg_class.oid`), which later reads of its columns use.
    public var oid: Int64
    public var schema: String
    public var name: String
    public var kind: Kind
    /// `pg_class.reltuples`: the planner's estimate of its rows, nil when the table was never
    /// analysed (a view has none).
    public var estimatedRows: Int?
    /// Whether its name alone reaches it through the search path (else it is shown `schema.name`).
    public var isVisible: Bool
    /// Whether rows can be inserted, changed and deleted through it, by its kind and its rules
    /// (PostgreSQL's `pg_relation_is_updatable`), and this user's rights.
    public var canInsert: Bool
    public var canUpdate: Bool
    public var canDelete: Bool

    /// The name the tables screen shows and `--table` takes.
    public var displayName: String { isVisible ? name : "\(schema).\(name)" }

    /// The name quoted for SQL, schema included.
    public var quotedName: String { "\(PostgresName.quoted(schema)).\(PostgresName.quoted(name))" }
}

/// Quoting of PostgreSQL identifiers.
public enum PostgresName {
    /// `name` in double quotes, inner quotes doubled: safe for any name.
    public static func quoted(_ name: String) -> String {
        name.quotedIdentifier
    }
}
