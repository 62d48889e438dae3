/// Moving the cursor by word, as text fields and text areas do (Alt-B / Alt-F, Ctrl-← /
/// Ctrl-→): a word is a run of letters, digits and `_`; anything else, line breaks
/// included, is passed over.
enum WordMotion {
    static func isWord(_ character: Character) -> Bool {
        character.isLetter || character.isNumber || character == "_"
    }

    /// The start of the word before `cursor` (or of the one it is in), and how many
    /// characters back that is.
    static func previousStart<Text: BidirectionalCollection<Character>>(in text: Text, from cursor: Text.Index) -> (Text.Index, Int) {
        var index = cursor
        var moved = 0
        while index > text.startIndex, !isWord(text[text.index(before: index)]) { index = text.index(before: index); moved += 1 }
        while index > text.startIndex, isWord(text[text.index(before: index)]) { index = text.index(before: index); moved += 1 }
        return (index, moved)
    }

    /// The end of the word after `cursor` (or of the one it is in), and how many characters
    /// on that is.
    static func nextEnd<Text: BidirectionalCollection<Character>>(in text: Text, from cursor: Text.Index) -> (Text.Index, Int) {
        var index = cursor
        var moved = 0
        while index < text.endIndex, !isWord(text[index]) { index = text.index(after: index); moved += 1 }
        while index < text.endIndex, isWord(text[index]) { index = text.index(after: index); moved += 1 }
        return (index, moved)
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

    /// Where the cursor goes for `direction` in an array of characters.
    static func move(_ direction: Direction, in characters: [Character], from cursor: Int) -> Int {
        direction == .backward ? previousStart(in: characters, from: cursor).0 : nextEnd(in: characters, from: cursor).0
    }
}
