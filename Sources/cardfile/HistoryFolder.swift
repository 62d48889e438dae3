import CardfileApp
import CardfileStore
import Foundation

/// Where the history of saves is kept: `history` in the user's state folder
/// (`$XDG_STATE_HOME/cardfile`, else `~/.local/state/cardfile`); nil when there is none.
enum HistoryFolder {
    static func settings() -> HistorySettings? {
        ColumnMemory.defaultFolder(environment: ProcessInfo.processInfo.environment).map { HistorySettings(folder: $0 + "/history") }
    }
}
