/// Moving the cursor by word, as text fields and text areas do (Alt-B / Alt-F, Ctrl-← /
/// Ctrl-→): a word is a run of letters, digits and `_`; anything else, line breaks
/// included, is passed over.
enum WordMotion {
    static func isWord(_ character: Character) -> Bool {
        character.isLetter || character.isNumber || character == "_"
    }

    /// The start of the word before `cursor` (or of the one it is in).
    static func previousStart(in characters: [Character], from cursor: Int) -> Int {
        var index = cursor
        while index > 0, !isWord(characters[index - 1]) { index -= 1 }
        while index > 0, isWord(characters[index - 1]) { index -= 1 }
        return index
    }

    /// The end of the word after `cursor` (or of the one it is in).
    static func nextEnd(in characters: [Character], from cursor: Int) -> Int {
        var index = cursor
        while index < characters.count, !isWord(characters[index]) { index += 1 }
        while index < characters.count, isWord(characters[index]) { index += 1 }
        return index
    }

    /// The direction a key moves by word, or nil when it is not a word key.
    static func direction(of event: KeyEvent) -> Direction? {
        let byWord = !event.modifiers.isDisjoint(with: [.alt, .control])
        switch event.key {
        case .left where byWord: return .backward
        case .right where byWord: return .forward
        case .character("b") where event.modifiers == .alt: return .backward
        case .character("f") where event.modifiers == .alt: return .forward
        default: return nil
        }
    }

    enum Direction { case backward, forward }

    /// Where the cursor goes for `direction`.
    static func move(_ direction: Direction, in characters: [Character], from cursor: Int) -> Int {
        direction == .backward ? previousStart(in: characters, from: cursor) : nextEnd(in: characters, from: cursor)
    }
}
