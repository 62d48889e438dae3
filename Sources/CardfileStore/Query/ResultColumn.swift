/// One column of a SELECT's result as the engine compiled it: its name, declared type, and
/// the table and column it is taken from unchanged (nil for an expression, or a table of
/// another database).
package struct ResultColumn: Sendable, Equatable {
    package let name: String
    package let declaredType: String?
    package let table: String?
    package let column: String?

    package init(name: String, declaredType: String?, table: String?, column: String?) {
        self.name = name
        self.declaredType = declaredType
        self.table = table
        self.column = column
    }
}
