import CardfileTerminal

/// What covers the screen and takes the keys: a prompt on the message line, a dialog, the
/// help or a report. Each kind has its own key map (``keyMap``), which the help lists.
indirect enum Overlay {
    /// The keys of what is on screen.
    case help(HelpPanel)
    /// Text to read: a report, a command's options.
    case panel(ReadingPanel)
    /// A question with buttons, answered by ``CardfileApp/answer(_:button:now:)``.
    case question(QuestionDialog)
    /// The `:` command line.
    case commandLine(CommandLinePrompt)
    /// The list's filter being typed; it applies as it is typed.
    case filter(FilterPrompt)
    /// A search being typed (`f`): Enter finds, Esc leaves it.
    case find(FindPrompt)
    /// A save met changes made elsewhere: Original / Mine / Theirs.
    case conflict(ConflictDialog)
    /// A column's frequency table (`F`).
    case frequencies(FrequencyPanel)
    /// A table's schema (`:schema`).
    case schema(SchemaPanel)
    /// A record's saved versions (`:history`).
    case history(HistoryPanel)

    /// The keys this overlay answers to.
    var keyMap: KeyMap<AppAction> {
        switch self {
        case .help, .panel: KeyMaps.reading
        case .question: KeyMaps.dialog
        case .commandLine: KeyMaps.commandLine
        case .filter(let prompt): prompt.forTables ? KeyMaps.tablesFilter : KeyMaps.filter
        case .find: KeyMaps.find
        case .conflict: KeyMaps.conflict
        case .frequencies: KeyMaps.frequencies
        case .schema: KeyMaps.schema
        case .history: KeyMaps.history
        }
    }
}
