import CardfileStore

/// A list's marked records (Space, `:select`, `:unselect`): the rules, which of the rows on
/// screen they mark, and how many they mark in all.
///
/// The rules live in a ``MarkSet``, so marking every match of a filter over a million rows
/// holds one rule, not a million records. What the screen shows is looked up for the rows in
/// the window only (when the window or the rules change); the count is made off the loop and
/// comes back with the token it was asked with, so a stale count is never shown.
struct ListMarks {
    private(set) var rules = MarkSet()
    /// The marked records among the rows on screen.
    private(set) var onScreen: Set<ObjectID> = []
    /// The window and rules ``onScreen`` was looked up for.
    private var lookedUp: (window: UInt64, rules: MarkSet)?
    /// How many records the rules mark, once counted; nil while a count is due or running.
    private(set) var count: Int?
    /// The count asked for last; a result with another token is stale.
    private(set) var countToken = 0
    /// True when the count must be made again (the rules or the data changed).
    private(set) var countIsDue = false

    var isEmpty: Bool { rules.isEmpty }

    /// Marks or unmarks one record.
    mutating func set(_ id: ObjectID, marked: Bool) {
        rules.set(id, marked: marked)
        if marked { onScreen.insert(id) } else { onScreen.remove(id) }
        rulesChanged()
    }

    /// Marks or unmarks every record matching `predicate`.
    mutating func set(matching predicate: Predicate, marked: Bool) {
        rules.set(matching: predicate, marked: marked)
        rulesChanged()
    }

    mutating func clear() {
        rules.clear()
        onScreen = []
        rulesChanged()
    }

    private mutating func rulesChanged() {
        count = rules.isEmpty ? 0 : nil
        countIsDue = !rules.isEmpty
        countToken += 1
    }

    /// The data changed (a refresh brought changes): the count is made again.
    mutating func dataChanged() {
        guard !rules.isEmpty else { return }
        countIsDue = true
        countToken += 1
    }

    /// True when the rows on screen must be looked up for `window` (its version).
    func needsLookUp(window: UInt64) -> Bool {
        guard let lookedUp else { return !rules.isEmpty }
        return lookedUp.window != window || lookedUp.rules != rules
    }

    /// Takes what a look-up of the rows on screen found.
    mutating func take(_ marked: Set<ObjectID>, window: UInt64) {
        onScreen = marked
        lookedUp = (window, rules)
    }

    /// The count has been asked for (with ``countToken``).
    mutating func countStarted() {
        countIsDue = false
    }

    /// Takes a finished count, unless a newer one was asked for since.
    mutating func take(count: Int, token: Int) {
        guard token == countToken else { return }
        self.count = count
    }

    /// The status bar's words: `3 marked`, or that they are being counted.
    var statusText: String? {
        guard !rules.isEmpty else { return nil }
        return count.map { "\(ValueText.count($0)) marked" } ?? "counting marks…"
    }
}
