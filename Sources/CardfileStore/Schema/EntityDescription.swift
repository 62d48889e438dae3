/// What a table's columns do not say: fields kept only in memory, validation rules, and the
/// column that versions each row.
public struct EntityDescription: Sendable, Hashable {
    /// A validation rule declared on one field.
    public enum FieldRule: Sendable, Hashable {
        /// Text length in characters (grapheme clusters), inclusive bounds.
        case length(min: Int? = nil, max: Int? = nil)
        /// Numeric value, inclusive bounds.
        case range(min: Double? = nil, max: Double? = nil)
        /// Neither NULL nor empty text.
        case required
    }

    public var table: String
    /// Fields that exist only in memory: they count for `hasChanges`, never for
    /// `hasPersistentChanges`, and are never written. Names must not collide with columns.
    public var transientFields: [String]
    public var rules: [String: [FieldRule]]
    /// An integer column the store increments on every write; when set, conflicts are detected
    /// by this column alone instead of by comparing every column.
    public var versionColumn: String?

    public init(table: String, transientFields: [String] = [], rules: [String: [FieldRule]] = [:], versionColumn: String? = nil) {
        self.table = table
        self.transientFields = transientFields
        self.rules = rules
        self.versionColumn = versionColumn
    }
}
