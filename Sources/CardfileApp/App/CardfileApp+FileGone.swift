import CardfileStore
import Foundation

/// The database file replaced or deleted under the editor: the store stops writing through
/// its path (see ``Container/checkFile()``); here the person is told, and `:saveas` keeps the
/// work in a new file.
extension CardfileApp {
    /// `The file was replaced` / `The file was deleted`, with the name.
    static func fileGoneSentence(_ gone: FileGone) -> String {
        gone == .replaced ? "The file was replaced: another file now stands at its path." : "The file was deleted."
    }

    /// The message line once the file is gone, the way out first (it must fit 80 columns):
    /// `File replaced: :saveas FILE keeps your edits (nothing is saved there now).`
    static func fileGoneNotice(_ gone: FileGone) -> String {
        "File \(gone == .replaced ? "replaced" : "deleted"): :saveas FILE keeps your edits (nothing is saved there now)."
    }

    /// The editor contexts of the open form and of the forms it was stacked on: where
    /// unsaved edits live.
    var editors: [ObjectContext] {
        screens.forms.map(\.session.editor)
    }

    /// Their change tokens, to tell whether anything was edited since a copy.
    var editorTokens: [UInt64] { editors.map(\.changeToken) }

    /// `:saveas FILE`: the database as last saved, plus every unsaved edit of the open
    /// forms, written to a new file (`:saveas!` may replace one). The edits stay on screen.
    func saveCopy(_ typed: String, replacing: Bool, now: ContinuousClock.Instant) {
        guard let path = resolvedPath(typed, now: now) else { return }
        do {
            let records = try container.saveCopy(to: path, replacing: replacing, with: editors)
            copiedAtTokens = editorTokens
            let edits = records == 0 ? "" : " with your edits to \(records) record\(records == 1 ? "" : "s")"
            notice = Notice(text: "Saved a copy\(edits) to \(PathText.name(of: path)); cardfile \(typed) opens it.", role: .success, expires: now + .seconds(20))
        } catch {
            if case .outputRefused(_, .exists) = error {
                return show("\(PathText.name(of: path)) exists; :saveas! \(typed) replaces it.", role: .warning, now: now)
            }
            show("No copy saved: \(error.message)", role: .error, now: now)
        }
    }
}
