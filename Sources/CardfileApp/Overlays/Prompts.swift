import CardfileTerminal

/// The list's filter being typed (`/`): the list follows each key; Enter keeps the filter,
/// Esc clears it.
struct FilterPrompt {
    var field: TextFieldState
}

/// A search being typed (`f`): Enter selects the next match, Esc leaves without finding.
struct FindPrompt {
    var field: TextFieldState
}

/// The `:` command line: Enter runs the command, Tab completes, ↑ ↓ go through the history.
struct CommandLinePrompt {
    var prompt: CommandPromptState
}
