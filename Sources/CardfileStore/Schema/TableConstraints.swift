/// A UNIQUE constraint or unique index (the primary key included).
public struct UniqueIndex: Hashable, Sendable {
    public var name: String
    public var columns: [String]
    /// True for an index with a WHERE clause, which constrains only some rows.
    public var isPartial: Bool

    package init(name: String, columns: [String], isPartial: Bool) {
        self.name = name
        self.columns = columns
        self.isPartial = isPartial
    }
}

/// An index usable for ordering: its key columns in order, with direction and collation.
public struct IndexDescription: Hashable, Sendable {
    public struct Column: Hashable, Sendable {
        /// Nil for an expression.
        public var name: String?
        public var isDescending: Bool
        public var collation: Collation

        package init(name: String?, isDescending: Bool, collation: Collation) {
            self.name = name
            self.isDescending = isDescending
            self.collation = collation
        }
    }
    public var name: String
    public var columns: [Column]
    public var isUnique: Bool
    public var isPartial: Bool

    package init(name: String, columns: [Column], isUnique: Bool, isPartial: Bool) {
        self.name = name
        self.columns = columns
        self.isUnique = isUnique
        self.isPartial = isPartial
    }
}

/// A FOREIGN KEY constraint.
public struct ForeignKeyDescription: Hashable, Sendable {
    /// What happens to child rows when the parent row is deleted or its key updated.
    public enum Action: String, Hashable, Sendable {
        case noAction = "NO ACTION", restrict = "RESTRICT", setNull = "SET NULL"
        case setDefault = "SET DEFAULT", cascade = "CASCADE"
    }
    /// The referenced (parent) table.
    public var parentTable: String
    /// The columns of this table.
    public var columns: [String]
    /// The referenced columns; nil entries mean "the parent's primary key".
    public var parentColumns: [String?]
    public var onDelete: Action
    public var onUpdate: Action

    package init(parentTable: String, columns: [String], parentColumns: [String?], onDelete: Action, onUpdate: Action) {
        self.parentTable = parentTable
        self.columns = columns
        self.parentColumns = parentColumns
        self.onDelete = onDelete
        self.onUpdate = onUpdate
    }
}

/// A CHECK constraint, with the columns its expression mentions.
public struct CheckConstraint: Hashable, Sendable {
    /// The constraint's name, when it was given one with `CONSTRAINT name`.
    public var name: String?
    /// The expression as written in the schema.
    public var expression: String
    /// The columns the expression reads, in schema spelling.
    public var columns: [String]

    package init(name: String?, expression: String, columns: [String]) {
        self.name = name
        self.expression = expression
        self.columns = columns
    }
}
