import CardfileTerminal
import Foundation

/// The messages the message line showed, newest last, for `:messages`: the line cuts a long
/// message and a message goes after a few seconds, so this is where one is read in full.
struct MessageLog {
    struct Entry: Equatable {
        /// The time of day it was shown (`14:02:11`).
        let time: String
        let text: String
        let role: Role
        /// How many times in a row it was shown.
        var times = 1
    }

    /// How many entries are kept; the oldest go first.
    static let capacity = 200

    private(set) var entries: [Entry] = []

    /// Notes a message shown at `wallTime`; the same text again in a row counts up instead.
    mutating func note(_ text: String, role: Role, at wallTime: Date) {
        let time = EditSession.timeOfDay(wallTime)
        if var last = entries.last, last.text == text {
            last.times += 1
            entries[entries.count - 1] = Entry(time: time, text: text, role: role, times: last.times)
            return
        }
        entries.append(Entry(time: time, text: text, role: role))
        if entries.count > Self.capacity { entries.removeFirst(entries.count - Self.capacity) }
    }

    /// The panel `:messages` shows: newest first, each message whole, its later lines indented
    /// under its time.
    var panel: TextPanel {
        var lines: [String] = []
        for entry in entries.reversed() {
            let parts = entry.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            let count = entry.times > 1 ? " (×\(entry.times))" : ""
            lines.append("\(entry.time)  \(parts[0])\(count)")
            let indent = String(repeating: " ", count: entry.time.count + 2)
            lines += parts.dropFirst().map { indent + $0 }
        }
        if lines.isEmpty { lines = ["No messages yet."] }
        return TextPanel(title: "Messages, newest first (\(entries.count))", lines: lines)
    }
}
