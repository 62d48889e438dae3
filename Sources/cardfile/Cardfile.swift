import ArgumentParser
import CardfileStore
import Foundation

/// The `cardfile` command. Today it opens a database (the demo one by default), checks that
/// Cardfile can work with it, and lists its tables; the record editor comes in a later issue.
@main
struct Cardfile: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cardfile",
        abstract: "A keyboard-driven editor for the records in SQLite databases.",
        discussion: "With no file, opens a demo database (created on first run).",
        version: "0.1.0")

    @Argument(help: "The SQLite database to open.")
    var file: String?

    @Flag(name: .long, help: "Open the database read-only.")
    var readOnly = false

    func run() throws {
        let path: String
        if let file {
            path = file
        } else {
            path = DemoDatabase.defaultPath()
            do {
                if try DemoDatabase.ensure(at: path) { print("Created the demo database.") }
            } catch {
                throw CleanExit.message(error.message)
            }
        }
        let container: Container
        do {
            container = try Container(path: path, options: StoreOptions(createIfMissing: false, readOnly: readOnly))
        } catch {
            FileHandle.standardError.write(Data((error.message + "\n").utf8))
            throw ExitCode(2)
        }
        print("Cardfile \(Self.configuration.version): \(container.path)\(container.isReadOnly ? " (read-only)" : "")")
        for table in container.schema.tables {
            let count = (try? container.viewContext.count(for: FetchRequest(table: table.name))) ?? 0
            let columns = table.columns.map(\.name).joined(separator: ", ")
            print("  \(table.name): \(count) record\(count == 1 ? "" : "s") (\(columns))")
        }
        print("""

            The record editor is not built yet. What exists is its foundation: the store
            (contexts, conflict detection, live queries) and the terminal toolkit; try the
            toolkit with `swift run cardfile-termdemo`.
            """)
    }
}
