import CardfileStore
import CardfileTerminal

/// `cardfile merge` on a terminal: each contested record in the conflict dialog, one after
/// another, with its usual keys (per field ←→ and Enter; `m` merge, `K` keep mine, `t` take
/// theirs, `r` restore); Esc stops the merge, and nothing is written.
///
/// Mine is OURS (the branch being merged into), Theirs the other branch, Original the common
/// ancestor. The choices become writes into OURS (``writes``), applied with the merge's other
/// writes in one transaction by the command.
public struct MergeChooser {
    public enum Step: Equatable {
        /// Still choosing.
        case choosing
        /// Every record is chosen: ``writes`` holds the result.
        case done
        /// Esc: the merge stops, nothing is written.
        case stopped
    }

    public let contests: [DatabaseMerge.Contest]
    /// The record chosen for each contest so far (nil: no record).
    public private(set) var chosen: [[Value]?] = []
    private(set) var dialog: ConflictDialog

    /// Nil when there is nothing to choose.
    public init?(contests: [DatabaseMerge.Contest]) {
        guard let first = contests.first else { return nil }
        self.contests = contests
        dialog = Self.dialog(for: first, number: 1, of: contests.count)
    }

    /// The writes into OURS that the choices make.
    public var writes: [DatabaseMerge.Write] {
        zip(contests, chosen).flatMap { DatabaseMerge.resolution(of: $0, as: $1) }
    }

    public mutating func handle(_ key: KeyEvent) -> Step {
        let contest = contests[chosen.count]
        let row: [Value]?
        switch dialog.handle(key) {
        case .none: return .choosing
        case .cancel: return .stopped
        case .saveChoices:
            let picks = Dictionary(dialog.choices.map { ($0.name, $0.choice) }, uniquingKeysWith: { $1 })
            row = Self.merged(contest) { column in picks[contest.columns[column]]?.side }
        case .merge: row = Self.merged(contest) { _ in nil }
        case .keepMine, .restore: row = contest.mine
        case .takeTheirs, .acceptDeletion: row = contest.theirs
        }
        chosen.append(row)
        guard chosen.count < contests.count else { return .done }
        dialog = Self.dialog(for: contests[chosen.count], number: chosen.count + 1, of: contests.count)
        return .choosing
    }

    /// The record field by field: a field one side changed takes that side (mine first), a
    /// field `pick` names takes the side chosen. A record one side deleted: the other side's.
    private static func merged(_ contest: DatabaseMerge.Contest, pick: (Int) -> ThreeWayMerge.Side?) -> [Value]? {
        guard let mine = contest.mine else { return contest.theirs }
        guard let theirs = contest.theirs else { return mine }
        let original = contest.original ?? Array(repeating: .null, count: contest.columns.count)
        return contest.columns.indices.map { column in
            switch pick(column) {
            case .original?: original[column]
            case .mine?: mine[column]
            case .theirs?: theirs[column]
            case nil: mine[column] != original[column] ? mine[column] : theirs[column]
            }
        }
    }

    private static func dialog(for contest: DatabaseMerge.Contest, number: Int, of count: Int) -> ConflictDialog {
        let original = contest.original ?? Array(repeating: .null, count: contest.columns.count)
        let kind: MergeConflict.Kind = contest.mine == nil ? .deleteUpdate : contest.theirs == nil ? .updateDelete : .updateUpdate
        let mine = contest.mine ?? original
        let fields = contest.columns.indices.compactMap { column -> MergeConflict.Field? in
            let theirs = contest.theirs?[column]
            guard mine[column] != original[column] || theirs != original[column] else { return nil }
            return MergeConflict.Field(name: contest.columns[column], original: original[column], mine: mine[column], theirs: theirs)
        }
        let title = "\(contest.table) \(contest.key.map { TerminalText.visible($0.description) }.joined(separator: "/"))"
        var dialog = ConflictDialog(conflict: MergeConflict(objectID: ObjectID(table: contest.table, primaryKey: contest.key), kind: kind, fields: fields),
                                    recordTitle: title)
        let place = count > 1 ? " (\(number) of \(count))" : ""
        dialog.wording = switch kind {
        case .updateDelete: ("Deleted in theirs\(place): \(title)", "Ours changed this record; theirs deleted it.",
                             "r keep ours · t accept the deletion · Esc stop, nothing written")
        case .deleteUpdate: ("Deleted in ours\(place): \(title)", "Ours deleted this record; theirs changed it. Enter or t keeps theirs, K keeps the deletion.",
                             "Enter or t keep theirs · K keep the deletion · Esc stop, nothing written")
        case .updateUpdate: ("Changed on both sides\(place): \(title)",
                             contest.original == nil ? "Both sides added this record. Mine is ours, Theirs the other branch."
                                 : "Fields in bold were changed on both sides. Original is the common ancestor, Mine ours, Theirs the other branch.",
                             "↑↓ field · ←→ choose · Enter write · m merge · K keep mine · t take theirs · Esc stop, nothing written")
        }
        return dialog
    }

    /// The screen: a line on the merge, then the dialog.
    public func render(size: Size) -> Buffer {
        var buffer = Buffer(size: size)
        let done = chosen.count
        let line = "cardfile merge: \(contests.count) contested record\(contests.count == 1 ? "" : "s"), \(done) chosen"
        _ = buffer.write(line, x: 0, y: 0, maxWidth: size.width, style: Style(foreground: .accent, attributes: [.bold]))
        dialog.render(in: Rect(x: 0, y: 1, width: size.width, height: max(0, size.height - 1)), buffer: &buffer)
        return buffer
    }
}
