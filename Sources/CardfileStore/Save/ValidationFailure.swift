/// One reason a save was refused, for one object and (usually) one field.
public struct ValidationFailure: Hashable, Sendable {
    /// The rule that failed.
    public enum Rule: Hashable, Sendable {
        /// A NOT NULL column got no value.
        case notNull
        /// The value cannot be stored as the column's affinity asks.
        case type(Affinity)
        /// A real number that is not a number (NaN): SQLite would store it as NULL, so the
        /// record would show one thing and the file hold another.
        case notANumber
        /// A text length rule declared on the field.
        case length(min: Int?, max: Int?)
        /// A numeric range rule declared on the field.
        case range(min: Double?, max: Double?)
        /// A declared rule that the field may not be empty.
        case required
        /// A CHECK constraint of the table.
        case check(expression: String)
        /// Another row already has these values in a unique column set.
        case unique(columns: [String])
        /// The value refers to a parent row that does not exist.
        case foreignKey(parentTable: String)
        /// Other rows refer to this one, so it cannot be deleted or re-keyed.
        case referenced(by: String)
        /// The field is computed by the database or identifies the row, so it cannot be edited.
        case readOnlyField
        /// The table cannot be edited (its rows cannot be told apart).
        case readOnlyTable
        /// The record is in a view with no `INSTEAD OF` trigger for this kind of change (for
        /// an update, none that covers the field).
        case viewNotWritable(ViewWrites.Kind)
        /// The database ignored the record (a trigger's `RAISE(IGNORE)`).
        case ignoredByDatabase
        /// The database's type refused the value, in its own words (PostgreSQL's
        /// `invalid input value for enum tier: "7.5"`).
        case refusedValue(reason: String)
    }

    public let objectID: ObjectID
    /// The field involved; nil when the failure is about the whole object.
    public let field: String?
    public let rule: Rule
    /// The offending value, when there is one. Never included in ``message`` for blobs.
    public let value: Value?

    /// A sentence a person understands, naming the field and the rule.
    package init(objectID: ObjectID, field: String?, rule: Rule, value: Value?) {
        self.objectID = objectID
        self.field = field
        self.rule = rule
        self.value = value
    }

    public var message: String { StoreError.describe(self) }
}
