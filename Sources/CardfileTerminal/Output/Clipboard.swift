import Foundation

/// Copying to the system clipboard through the terminal: OSC 52, which most terminals accept
/// (tmux passes it on with `set-clipboard on`).
public enum Clipboard {
    /// The most text one sequence carries; some terminals drop longer ones (xterm's default
    /// limit is near a megabyte, others less), so longer text is refused with a reason.
    public static let limit = 1 << 20

    /// The OSC 52 sequence that puts `text` on the clipboard: the text travels base64-encoded,
    /// so nothing in it can be taken as a control sequence. Nil when it is over ``limit``.
    public static func osc52(_ text: String) -> String? {
        let data = Data(text.utf8)
        guard data.count <= limit else { return nil }
        return "\u{1B}]52;c;" + data.base64EncodedString() + "\u{07}"
    }
}
