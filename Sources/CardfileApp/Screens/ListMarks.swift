import CardfileStore
import Foundation

/// A list's marked records (Space, `:select`, `:unselect`): the rules, which of the rows on
/// screen they mark, and how many they mark in all.
///
/// The rules live in a ``MarkSet``, so marking every match of a filter over a million rows
/// holds one rule, not a million records. What the screen shows is looked up for the rows in
/// the window only (when the window or the rules change); the count is made off the loop, one
/// at a time, and comes back naming these marks (``id``) and the rules it was asked for
/// (``countToken``): a count for another list, or for older rules, is never shown.
struct ListMarks {
    /// Names these marks among every list's (a count comes back to the list that asked).
    let id = UUID()
    private(set) var rules = MarkSet()
    /// The marked records among the rows on screen.
    private(set) var onScreen: Set<ObjectID> = []
    /// The window and rules ``onScreen`` was looked up for (also after a failed look-up: the
    /// next window, change of the rules or of the data asks again, not every wake-up).
    private var lookedUp: (window: UInt64, rules: Int, refreshes: UInt64)?
    /// Counts the changes of the rules: the same rules again (marked, cleared, marked again)
    /// are a change too, since what the screen shows was cleared between.
    private(set) var rulesVersion = 0
    /// How many records the rules mark, once counted; nil while a count is due or running.
    var count: Int? { counted?.count }
    /// The last count, with the sum and mean of ``summedColumn``'s numbers when it has one.
    private(set) var counted: MarkedCount?
    /// The numeric column the count sums (the list's focused one), nil when it is not numeric.
    private(set) var summedColumn: String?
    /// Names the rules and data a count is asked for; a result with another token is stale.
    private(set) var countToken = 0
    /// True when a count must be made (the rules or the data changed since the last one).
    private(set) var countIsDue = false
    /// True while a count runs: the next waits for it, so counts never pile up.
    private(set) var countIsRunning = false
    /// The last count asked for failed.
    private(set) var countFailed = false
    /// The list's data reads (``LiveQuery/refreshes``) the count was made after.
    private var countedAfter: UInt64 = 0

    var isEmpty: Bool { rules.isEmpty }

    /// Marks or unmarks one record.
    mutating func set(_ id: ObjectID, marked: Bool) {
        rules.set(id, marked: marked)
        if marked { onScreen.insert(id) } else { onScreen.remove(id) }
        rulesChanged()
    }

    /// Marks or unmarks every record matching `predicate`.
    mutating func set(matching predicate: CardfileStore.Predicate, marked: Bool) {
        rules.set(matching: predicate, marked: marked)
        rulesChanged()
    }

    /// Takes `rules` in place of the marks (the records a bulk edit wrote).
    mutating func replace(with rules: MarkSet) {
        self.rules = rules
        onScreen = []
        rulesChanged()
    }

    mutating func clear() {
        rules.clear()
        onScreen = []
        rulesChanged()
    }

    /// Notes the numeric column focused in the list (nil: none): its sum is counted anew.
    mutating func note(summing column: String?) {
        guard column != summedColumn else { return }
        summedColumn = column
        guard !rules.isEmpty else { return }
        countIsDue = true
        countToken += 1
    }

    private mutating func rulesChanged() {
        rulesVersion += 1
        counted = rules.isEmpty ? MarkedCount(count: 0) : nil
        countIsDue = !rules.isEmpty
        countToken += 1
    }

    /// Notes the list's data reads: after a new one (records changed or went, on screen or
    /// not) the marks are counted and looked up again.
    mutating func note(refreshes: UInt64) {
        guard refreshes != countedAfter else { return }
        countedAfter = refreshes
        guard !rules.isEmpty else { return }
        countIsDue = true
        countToken += 1
    }

    /// True when the rows on screen must be looked up for `window` (its version).
    func needsLookUp(window: UInt64) -> Bool {
        guard let lookedUp else { return !rules.isEmpty }
        return lookedUp.window != window || lookedUp.rules != rulesVersion || lookedUp.refreshes != countedAfter
    }

    /// Takes what a look-up of the rows on screen found; nil when it failed (what was shown
    /// stays until the next window or change).
    mutating func take(_ marked: Set<ObjectID>?, window: UInt64) {
        if let marked { onScreen = marked }
        lookedUp = (window, rulesVersion, countedAfter)
    }

    /// A count is to start now (due, and none running): marks it running.
    mutating func startCount() -> Bool {
        guard countIsDue, !countIsRunning else { return false }
        countIsDue = false
        countIsRunning = true
        return true
    }

    /// Takes a finished count (nil: it failed, and is asked again), unless newer rules or
    /// data were asked about since.
    mutating func take(count: MarkedCount?, token: Int) {
        countIsRunning = false
        // A failed count is asked again when the data or the rules change, not at once (a
        // count that always fails would scan the table on every wake-up).
        guard let count else { return countFailed = token == countToken }
        guard token == countToken else { return }
        counted = count
        countFailed = false
    }

    /// The status bar's words: `3 marked`, or that they are being counted.
    var statusText: String? {
        guard !rules.isEmpty else { return nil }
        if countFailed, count == nil { return "marks not counted" }
        return count.map { "\(ValueText.count($0)) marked" } ?? "counting marks…"
    }

    /// The sum and mean of the focused numeric column over the marked records, for the
    /// status bar: `sum 1,234 · mean 411.333`; nil when there is none to give.
    var summaryText: String? {
        guard !rules.isEmpty, let summedColumn, let counted, counted.sum != .null, let mean = counted.mean else { return nil }
        let sum: String = switch counted.sum {
        case .integer(let int): (int < 0 ? "-" : "") + ValueText.count(Int(clamping: int.magnitude))
        case .real(let double): String(format: "%.10g", double)
        default: counted.sum.description
        }
        return "\(summedColumn): sum \(sum) · mean \(String(format: "%.6g", mean))"
    }
}
