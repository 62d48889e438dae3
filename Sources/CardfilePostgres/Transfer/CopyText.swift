import CardfileStore

/// Values as a row of `COPY`'s text format (``CopyTextRow``), each as the server's input
/// function reads it: for rows that came as values (a JSON file's).
enum CopyText {
    static func append(_ values: [Value], to row: inout [UInt8]) {
        for (index, value) in values.enumerated() {
            if index > 0 { row.append(0x09) }
            switch value {
            case .null: CopyTextRow.appendNull(to: &row)
            case .integer(let number): row.append(contentsOf: String(number).utf8)
            case .text(let text), .decimal(let text): CopyTextRow.appendField(text, to: &row)
            default: CopyTextRow.appendField(PostgresValues.text(value), to: &row)
            }
        }
        row.append(0x0A)
    }
}
