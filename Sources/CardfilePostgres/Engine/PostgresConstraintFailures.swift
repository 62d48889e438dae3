import CardfileStore

/// A constraint's refusal (SQLSTATE class 23) as the store's validation failures, naming the
/// field and rule from the server's message and detail:
///
/// - `23502` `null value in column "c" of relation …` → NOT NULL on `c`;
/// - `23505` `Key (a, b)=(…) already exists.` → UNIQUE on `a, b`;
/// - `23503` `Key (c)=(…) is not present in table "t".` → a missing parent in `t`, or on a
///   delete `… is still referenced from table "t".` → a child in `t` still refers to it;
/// - `23514` `… violates check constraint "name"` → that CHECK;
/// - any other refusal of the class → a CHECK-like rule with the server's words.
enum PostgresConstraintFailures {
    static func failures(message: String, detail: String?, sqlState: String, id: ObjectID, table: TableSchema, operation: WriteOperation) -> [ValidationFailure] {
        func value(_ column: String) -> Value? {
            guard case .write(let values) = operation, let index = table.columnIndex(named: column), values.indices.contains(index) else { return nil }
            return values[index]
        }
        switch sqlState {
        case "23502":
            let column = quoted(in: message).first
            return [ValidationFailure(objectID: id, field: column, rule: .notNull, value: nil)]
        case "23505":
            let columns = keyColumns(in: detail ?? "")
            return [ValidationFailure(objectID: id, field: columns.first, rule: .unique(columns: columns), value: columns.count == 1 ? value(columns[0]) : nil)]
        case "23503":
            let columns = keyColumns(in: detail ?? "")
            let other = quoted(in: detail ?? "").last ?? ""
            if (detail ?? "").contains("still referenced") {
                return [ValidationFailure(objectID: id, field: nil, rule: .referenced(by: other), value: nil)]
            }
            return [ValidationFailure(objectID: id, field: columns.first, rule: .foreignKey(parentTable: other), value: columns.first.flatMap(value))]
        case "23514":
            return [ValidationFailure(objectID: id, field: nil, rule: .check(expression: quoted(in: message).last ?? message), value: nil)]
        default:
            return [ValidationFailure(objectID: id, field: nil, rule: .check(expression: message), value: nil)]
        }
    }

    /// The names in double quotes in `text`, in order (`""` inside one is a quote).
    static func quoted(in text: String) -> [String] {
        var names: [String] = []
        var current: String?
        let chars = Array(text)
        var index = 0
        while index < chars.count {
            let char = chars[index]
            if char == "\"" {
                if current != nil, index + 1 < chars.count, chars[index + 1] == "\"" {
                    current!.append("\"")
                    index += 1
                } else if let name = current {
                    names.append(name)
                    current = nil
                } else {
                    current = ""
                }
            } else if current != nil {
                current!.append(char)
            }
            index += 1
        }
        return names
    }

    /// The columns of `Key (a, b)=(…)`: as PostgreSQL prints them, quoted where a name needs it.
    static func keyColumns(in detail: String) -> [String] {
        guard let open = detail.range(of: "Key ("), let close = detail.range(of: ")=(", range: open.upperBound..<detail.endIndex) else { return [] }
        let list = String(detail[open.upperBound..<close.lowerBound])
        return list.split(separator: ",").map { part in
            let name = part.trimmingCharacters(in: .whitespaces)
            return name.hasPrefix("\"") ? (quoted(in: name).first ?? name) : name
        }
    }
}
