/// Text from data (values, table names, paths, messages that quote them) made safe to write
/// to a terminal by any command: every scalar the screen would draw as a placeholder (C0 and
/// C1 controls, ESC, DEL, bidirectional overrides, line separators, the byte-order mark) is
/// written as that placeholder (`␛` for ESC), so no byte of data can set a title, write the
/// clipboard, move the cursor or ring the bell.
public enum TerminalText {
    /// `text` with its controls made visible. With `keepingLines`, line feeds and tabs stay
    /// (for output whose lines are its structure); otherwise they become `␊` and `␉`, so a
    /// path with a newline cannot split a one-line message.
    public static func visible(_ text: String, keepingLines: Bool = false) -> String {
        var needsWork = false
        for scalar in text.unicodeScalars where Glyph.placeholder(for: scalar.value) != nil {
            if keepingLines, scalar == "\n" || scalar == "\t" { continue }
            needsWork = true
            break
        }
        guard needsWork else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if keepingLines, scalar == "\n" || scalar == "\t" {
                out.append(scalar)
            } else if let placeholder = Glyph.placeholder(for: scalar.value) {
                out.append(contentsOf: placeholder.unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }
}
