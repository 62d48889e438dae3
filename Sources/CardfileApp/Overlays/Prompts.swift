import CardfileTerminal

/// The list's filter being typed (`/`): the list follows each key; Enter keeps the filter,
/// Esc clears it.
///
/// While the text cannot be read (`year >= 1990 and`, a column that does not exist), the list
/// keeps the last filter it could read and ``problem`` says why and where; Enter then keeps the
/// prompt open rather than leaving a filter that means something else.
struct FilterPrompt {
    var field: TextFieldState
    /// Why the text as typed is not the list's filter; nil when it is.
    var problem: FilterProblem?
    /// Enter was pressed while ``problem`` held.
    var refused = false
    /// It filters the tables screen by name, not a list by its records.
    var forTables = false
}

/// A search being typed (`f`): Enter selects the next match, Esc leaves without finding.
struct FindPrompt {
    var field: TextFieldState
}

/// The `:` command line: Enter runs the command, Tab completes, ↑ ↓ go through the history.
struct CommandLinePrompt {
    var prompt: CommandPromptState
}
