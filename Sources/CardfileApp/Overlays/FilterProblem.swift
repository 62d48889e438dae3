import CardfileStore
import Foundation

/// A filter that cannot be read: the reason, and the character it was found at.
struct FilterProblem: Equatable {
    var reason: String
    /// A character index in the text as typed; nil when the reason names no place.
    var offset: Int?
    /// The filter the list shows meanwhile (empty: every record).
    var shown: String
    /// The problem is that the text stops too soon (more typing may make it a filter).
    var atTheEnd: Bool

    init(_ error: StoreError, typed: String, shown: String) {
        if case .invalidFilter(let message, let offset) = error {
            reason = message
            self.offset = offset
        } else {
            reason = error.message
            offset = nil
        }
        self.shown = shown.trimmingCharacters(in: .whitespaces)
        let end = typed.count - typed.reversed().prefix { $0.isWhitespace }.count
        atTheEnd = offset.map { $0 >= end } ?? false
    }

    /// What the line above the prompt says.
    func sentence(refused: Bool) -> String {
        let place = offset.map { " at character \($0 + 1)" } ?? ""
        let list = shown.isEmpty ? "every record" : "“\(shown)”"
        return refused
            ? "Not applied\(place): \(reason). Fix it, or Esc clears the filter."
            : "\(atTheEnd ? "Incomplete" : "Not a filter")\(place): \(reason). The list shows \(list) meanwhile."
    }
}
