/// One column of a table, as introspected from the database.
public struct ColumnDescription: Hashable, Sendable {
    /// How a column's value comes about.
    public enum Generation: Hashable, Sendable {
        /// An ordinary column that callers write.
        case none
        /// `GENERATED ALWAYS AS (...) VIRTUAL`: computed on read, never written.
        case virtual
        /// `GENERATED ALWAYS AS (...) STORED`: computed on write, never written by callers.
        case stored
    }

    /// The column name, spelled as in the schema.
    public var name: String
    /// The declared type as written (`VARCHAR(20)`, `INTEGER`, or empty).
    public var declaredType: String
    /// The affinity SQLite derives from the declared type.
    public var affinity: Affinity
    /// True when the column is declared NOT NULL.
    public var isNotNull: Bool
    /// The default value's SQL text, if the column has one.
    public var defaultSQL: String?
    /// Position in the primary key, starting at 1; nil when not part of it.
    public var primaryKeyPosition: Int?
    /// Whether the column is generated.
    public var generation: Generation
    /// True for hidden columns (those of virtual tables).
    public var isHidden: Bool
    /// The collation declared on the column; `.binary` when none is.
    public var collation: Collation

    /// True for a column the database numbers (PostgreSQL's identity): not written by edits,
    /// but a row deleted and brought back by an undo gets its number back.
    public var isNumberedByDatabase = false

    /// True for a column whose values the engine can neither order nor tell apart by their
    /// own rules in every case (PostgreSQL's composite types, which compare member by member
    /// and fail on a `json` member): counted, sorted and grouped by their text.
    package var comparesAsText = false

    /// True when callers may write the column: not generated and not hidden.
    public var isWritable: Bool { generation == .none && !isHidden }

    public init(
        name: String, declaredType: String, isNotNull: Bool = false, defaultSQL: String? = nil,
        primaryKeyPosition: Int? = nil, generation: Generation = .none, isHidden: Bool = false,
        collation: Collation = .binary, strict: Bool = false
    ) {
        self.name = name
        self.declaredType = declaredType
        self.affinity = strict ? ColumnDescription.strictAffinity(declaredType) : Affinity(declaredType: declaredType)
        self.isNotNull = isNotNull
        self.defaultSQL = defaultSQL
        self.primaryKeyPosition = primaryKeyPosition
        self.generation = generation
        self.isHidden = isHidden
        self.collation = collation
    }

    /// STRICT tables allow six type names; ANY keeps values exactly as given (like a blob column).
    private static func strictAffinity(_ type: String) -> Affinity {
        switch type.uppercased() {
        case "INT", "INTEGER": return .integer
        case "REAL": return .real
        case "TEXT": return .text
        default: return .blob
        }
    }
}
