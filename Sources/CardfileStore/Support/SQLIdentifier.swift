import Foundation

extension String {
    /// The string as an SQL identifier: in double quotes, with embedded double quotes doubled,
    /// so any table or column name (quotes, spaces, keywords, emoji) is safe in SQL.
    ///
    /// GRDB's `quotedIdentifier` does not double embedded quotes (7.10.0), so a name
    /// such as `my "quoted" table` would break out of it; Cardfile uses this one everywhere.
    package var quotedIdentifier: String {
        "\"" + replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
