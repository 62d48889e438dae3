import Foundation
import Testing
@testable import CardfileStore

/// `:set COLUMN = VALUE` read in the filter's language, and signed numbers in filters.
@Suite("Assignments")
struct AssignmentTests {
    static let table = TableSchema(name: "t", columns: [
        ColumnDescription(name: "id", declaredType: "INTEGER"),
        ColumnDescription(name: "qty", declaredType: "INTEGER"),
        ColumnDescription(name: "code", declaredType: "TEXT"),
        ColumnDescription(name: "two words", declaredType: "REAL"),
    ], primaryKey: .rowidAlias(column: "id"))

    @Test(arguments: [
        ("qty = 5", "qty", Value.integer(5)),
        ("QTY == -5", "qty", .integer(-5)),
        ("qty = +2.5", "qty", .real(2.5)),
        ("qty = NULL", "qty", .null),
        ("code = 0012", "code", .text("0012")),
        ("code = -7", "code", .text("-7")),
        ("code = 'Le Guin'", "code", .text("Le Guin")),
        ("code = done", "code", .text("done")),
        ("code = x'00ff'", "code", .blob(Data([0, 255]))),
        ("\"two words\" = 1e3", "two words", .real(1000)),
    ])
    func readsTheColumnAndTheValue(text: String, column: String, value: Value) throws {
        let assignment = try FilterParser.parseAssignment(text, table: Self.table)
        #expect(assignment.column == column)
        #expect(assignment.value == value)
    }

    @Test(arguments: [
        ("", "say which column"),
        ("nope = 1", "no column is named “nope”"),
        ("qty 5", "“=” must follow"),
        ("qty < 5", "“=” must follow"),
        ("qty =", "a value is missing"),
        ("code = two words", "unexpected “words”"),
        ("code = 'open", "never closed"),
    ])
    func saysWhatIsWrong(text: String, words: String) {
        #expect {
            _ = try FilterParser.parseAssignment(text, table: Self.table)
        } throws: { error in
            guard case .invalidFilter(let message, _) = error as? StoreError else { return false }
            return message.contains(words)
        }
    }

    @Test func aFilterReadsASignedNumber() throws {
        #expect(try FilterParser.parse("qty = -5", table: Self.table, searchColumns: []) == .compare("qty", .equal, .integer(-5)))
        #expect(try FilterParser.parse("qty > -2.5 and qty < 3", table: Self.table, searchColumns: [])
                == .and([.compare("qty", .greater, .real(-2.5)), .compare("qty", .less, .integer(3))]))
        // A minus apart from the number is not its sign.
        #expect(throws: StoreError.self) { try FilterParser.parse("qty = - 5", table: Self.table, searchColumns: []) }
    }
}
