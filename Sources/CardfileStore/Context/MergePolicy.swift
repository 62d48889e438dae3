/// How a root save resolves a conflict: a row that changed or vanished in the store since the
/// context read it.
///
/// The rules, property by property (`original` is the value an edit started from, `mine` the
/// context's value, `theirs` the store's current value):
///
/// | policy | update / update | update / delete (mine / theirs) | delete / update |
/// |---|---|---|---|
/// | `.error` | nothing is written; the save throws every conflict | same | same |
/// | `.objectTrump` | fields I changed take mine, all others take theirs | my row is re-inserted with my values | my delete wins |
/// | `.storeTrump` | fields changed in both take theirs; my other changes are kept | their delete wins | their row is kept, my delete dropped |
/// | `.overwrite` | my whole object is written | my row is re-inserted | my delete wins |
/// | `.rollback` | my changes to the object are dropped, their row adopted | their delete wins | their row is kept |
///
/// After a resolved save the object's snapshot is the row as written.
public enum MergePolicy: Hashable, Sendable {
    case error
    case objectTrump
    case storeTrump
    case overwrite
    case rollback

    /// The side that wins a conflict about a whole record (deleted on one side, changed on
    /// the other): mine under `.objectTrump` and `.overwrite`, theirs under `.storeTrump` and
    /// `.rollback`, nil under `.error`.
    var recordSide: ThreeWayMerge.Side? {
        switch self {
        case .error: nil
        case .objectTrump, .overwrite: .mine
        case .storeTrump, .rollback: .theirs
        }
    }
}
