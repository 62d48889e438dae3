import CardfileStore
import Foundation

/// A field's text edited in the person's own editor (`$VISUAL`, `$EDITOR`, else `vi`), on a
/// temporary file that is always removed afterwards.
///
/// The loop hands the terminal over while the editor runs (``AppCommand/editExternally(_:)``)
/// and gives the outcome back to the app, which applies a changed text as one undoable edit.
public struct ExternalEdit: Equatable, Sendable {
    /// The field being edited.
    public let field: String
    /// Its text when the editor opened.
    public let text: String
    /// Open the file read-only and keep nothing (a read-only form or field).
    public let readOnly: Bool
    /// The shell command that runs the editor; the file's path is added as its last argument.
    public let command: String
    /// Gives the temporary file a recognisable name (`cards-notes-…`).
    public let fileStem: String
    /// The temporary file's extension (`sql` lets an editor colour a statement).
    public var fileExtension = "txt"

    /// What happened in the editor.
    public enum Outcome: Equatable, Sendable {
        /// The file came back with this text.
        case changed(String)
        /// The file came back as it went out.
        case unchanged
        /// The editor exited with this status: nothing is kept.
        case failed(status: Int32)
        /// The editor could not be started, or the file could not be written or read.
        case couldNotRun(String)
    }

    /// The editor command a person chose: `$VISUAL`, else `$EDITOR`, else `vi`.
    public static func command(environment: [String: String]) -> String {
        for name in ["VISUAL", "EDITOR"] {
            if let value = environment[name]?.trimmingCharacters(in: .whitespaces), !value.isEmpty { return value }
        }
        return "vi"
    }

    /// Writes the text to a temporary file, runs the editor on it (the caller has handed it
    /// the terminal), reads the file back and removes it.
    public func run() -> Outcome {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cardfile-\(UUID().uuidString.prefix(8))")
        let file = folder.appendingPathComponent("\(Self.safe(fileStem)).\(Self.safe(fileExtension))")
        defer { try? FileManager.default.removeItem(at: folder) }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
            try Data(text.utf8).write(to: file)
            if readOnly { try FileManager.default.setAttributes([.posixPermissions: 0o400], ofItemAtPath: file.path) }
        } catch {
            return .couldNotRun("the temporary file could not be written: \(error.localizedDescription)")
        }
        // The command may carry arguments of its own (`code --wait`), as shells allow.
        guard let status = ForegroundProcess.run(["/bin/sh", "-c", command + " \"$1\"", "sh", file.path]) else {
            return .couldNotRun("\(command) could not be started")
        }
        if status == 127 || status == 126 { return .couldNotRun("\(command) was not found (set $VISUAL or $EDITOR)") }
        guard status == 0 else { return .failed(status: status) }
        if readOnly { return .unchanged }
        guard let data = FileManager.default.contents(atPath: file.path) else {
            return .couldNotRun("the editor left no file to read back")
        }
        var edited = String(decoding: data, as: UTF8.self)
        // Editors end the last line with a line break; a text that had none keeps none.
        // ("\r\n" is one Character in Swift, so it is asked for separately.)
        if !text.hasSuffix("\n"), edited.hasSuffix("\n") || edited.hasSuffix("\r\n") { edited.removeLast() }
        return edited == text ? .unchanged : .changed(edited)
    }

    /// A file name part with only harmless characters.
    private static func safe(_ stem: String) -> String {
        let kept = stem.unicodeScalars.map { CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_" ? Character($0) : "_" }
        return String(String(kept).prefix(60))
    }
}
