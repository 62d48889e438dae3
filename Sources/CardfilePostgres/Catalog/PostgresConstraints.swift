import CardfileStore
import PostgresNIO

/// The constraints and indexes of a table, read from the catalogs for the store's table
/// description: foreign keys (what `:schema` lists, a form's references follow and a save
/// orders its writes by), CHECK rules, unique indexes (which an upsert's conflict target may
/// name) and every index with its columns.
public struct PostgresConstraints: Sendable, Equatable {
    public var foreignKeys: [ForeignKeyDescription] = []
    public var checks: [CheckConstraint] = []
    public var uniqueIndexes: [UniqueIndex] = []
    public var indexes: [IndexDescription] = []

    public init() {}
}

extension PostgresCatalog {
    /// The constraints of each of `relations`, by object id: three catalog reads for all of
    /// them, whatever their number (opening reads every table; one read per table each cost a
    /// round trip). A parent table outside `relations` is named by `regclass` (qualified when
    /// the search path does not reach it).
    public func constraints(of relations: [PostgresRelation]) throws(PostgresProblem) -> [Int64: PostgresConstraints] {
        guard !relations.isEmpty else { return [:] }
        let list = relations.map { String($0.oid) }.joined(separator: ", ")
        let names = Dictionary(relations.map { ($0.oid, $0.displayName) }, uniquingKeysWith: { first, _ in first })
        var found: [Int64: PostgresConstraints] = [:]
        // (Columns by position: a constraint lists attribute numbers.)
        let keyNames = { (relation: String, numbers: String) in
            "array(SELECT a.attname::text FROM unnest(\(numbers)) WITH ORDINALITY AS k(n, p) JOIN pg_catalog.pg_attribute a ON a.attrelid = \(relation) AND a.attnum = k.n ORDER BY k.p)"
        }
        let foreign = try session.rows(PostgresQuery(unsafeSQL: """
            SELECT c.conrelid::int8, c.confrelid::int8, c.confrelid::regclass::text, \(keyNames("c.conrelid", "c.conkey")),
                   \(keyNames("c.confrelid", "c.confkey")), c.confdeltype::text, c.confupdtype::text
            FROM pg_catalog.pg_constraint c
            WHERE c.contype = 'f' AND c.conparentid = 0 AND c.conrelid IN (\(list))
            ORDER BY c.conrelid, c.conname
            """))
        let checks = try session.rows(PostgresQuery(unsafeSQL: """
            SELECT c.conrelid::int8, c.conname::text, pg_get_expr(c.conbin, c.conrelid), \(keyNames("c.conrelid", "c.conkey"))
            FROM pg_catalog.pg_constraint c
            WHERE c.contype = 'c' AND c.conrelid IN (\(list))
            ORDER BY c.conrelid, c.conname
            """))
        let indexes = try session.rows(PostgresQuery(unsafeSQL: """
            SELECT x.indrelid::int8, i.relname::text, x.indisunique, x.indpred IS NOT NULL,
                   array(SELECT coalesce(a.attname::text, '') FROM unnest(x.indkey) WITH ORDINALITY AS k(n, p)
                         LEFT JOIN pg_catalog.pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.n AND k.n > 0
                         WHERE k.p <= x.indnkeyatts ORDER BY k.p),
                   array(SELECT (o::int & 1) = 1 FROM unnest(x.indoption) WITH ORDINALITY AS k(o, p) WHERE k.p <= x.indnkeyatts ORDER BY k.p)
            FROM pg_catalog.pg_index x JOIN pg_catalog.pg_class i ON i.oid = x.indexrelid
            WHERE x.indrelid IN (\(list))
            ORDER BY x.indrelid, x.indisprimary DESC, i.relname
            """))
        do {
            for row in foreign {
                let (table, parent, parentText, columns, parentColumns, onDelete, onUpdate) =
                    try row.decode((Int64, Int64, String, [String], [String], String, String).self)
                found[table, default: PostgresConstraints()].foreignKeys.append(ForeignKeyDescription(
                    parentTable: names[parent] ?? parentText, columns: columns, parentColumns: parentColumns,
                    onDelete: Self.action(onDelete), onUpdate: Self.action(onUpdate)))
            }
            for row in checks {
                let (table, name, expression, columns) = try row.decode((Int64, String, String, [String]).self)
                found[table, default: PostgresConstraints()].checks.append(CheckConstraint(name: name, expression: expression, columns: columns))
            }
            for row in indexes {
                let (table, name, isUnique, isPartial, columns, descending) = try row.decode((Int64, String, Bool, Bool, [String], [Bool]).self)
                let described = columns.enumerated().map { position, column in
                    IndexDescription.Column(name: column.isEmpty ? nil : column, isDescending: descending.indices.contains(position) && descending[position], collation: .binary)
                }
                var constraints = found[table, default: PostgresConstraints()]
                constraints.indexes.append(IndexDescription(name: name, columns: described, isUnique: isUnique, isPartial: isPartial))
                // (An index on an expression constrains no column as such.)
                if isUnique, !columns.contains("") {
                    constraints.uniqueIndexes.append(UniqueIndex(name: name, columns: columns, isPartial: isPartial))
                }
                found[table] = constraints
            }
        } catch {
            throw .refused(message: "unexpected answer reading the constraints: \(error)", detail: nil, sqlState: "")
        }
        return found
    }

    /// A foreign key's action as `pg_constraint` codes it.
    private static func action(_ code: String) -> ForeignKeyDescription.Action {
        switch code {
        case "r": return .restrict
        case "c": return .cascade
        case "n": return .setNull
        case "d": return .setDefault
        default: return .noAction
        }
    }
}
