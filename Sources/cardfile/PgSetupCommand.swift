import ArgumentParser
import CardfilePostgres
import Foundation

extension Cardfile {
    /// `cardfile pg-setup URL [--table T]… [--remove]`: installs (or removes) the triggers that
    /// announce a PostgreSQL table's changes to the editors showing it.
    struct PgSetup: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "pg-setup",
            abstract: "Make PostgreSQL tables announce their changes (editors refresh at once) and keep Cardfile's history of saves.",
            discussion: """
                Adds statement-level triggers to each table (every table with a primary key in the \
                search path, or those given), and functions and the history journal (the tables \
                history_entry and history_change, which keep Cardfile's saves for :history and Alt-U) \
                in a schema named cardfile. Running it again is harmless; --remove takes the triggers \
                away (and, without --table, the journal and the schema). \
                \(NotifySetup.rightsNeeded).
                """)

        @Argument(help: "The database: postgres://user[:password]@host[:port]/db (PG* variables and ~/.pgpass fill in the rest).")
        var url: String

        @Option(name: .long, help: "Only this table (repeat for more); schema.name or a name in the search path.")
        var table: [String] = []

        @Flag(name: .long, help: "Remove the triggers instead.")
        var remove = false

        func run() throws {
            guard PostgresLocation.isURL(url) else { throw fail("pg-setup takes a postgres:// URL, not \"\(url)\"") }
            let (session, relations) = try PostgresOpen.check(url, table: nil)
            defer { session.close() }
            let catalog = PostgresCatalog(session: session)
            var chosen: [PostgresRelation] = relations
            if !table.isEmpty {
                chosen = []
                for name in table {
                    let found: PostgresRelation?
                    do { found = try catalog.relation(named: name) } catch { throw fail(error.message) }
                    guard let found else {
                        throw fail(PostgresProblem.unknownTable(database: session.location.description, table: name, known: relations.map(\.displayName)).message)
                    }
                    chosen.append(found)
                }
            }
            let outcomes: [(PostgresRelation, NotifySetup.Outcome)]
            var schemaDropped = false
            do {
                let setup = NotifySetup(session: session)
                if remove {
                    (outcomes, schemaDropped) = try setup.remove(chosen, everything: table.isEmpty)
                } else {
                    var described: [PostgresTableDescription] = []
                    for relation in chosen { described.append(try catalog.describe(relation)) }
                    outcomes = try setup.install(described)
                }
            } catch {
                throw fail("\(error.message); \(NotifySetup.rightsNeeded)")
            }
            var failed = false
            for (relation, outcome) in outcomes {
                switch outcome {
                case .installed: Output.say("\(relation.displayName): announces its changes")
                case .removed: Output.say("\(relation.displayName): no longer announces its changes")
                case .skipped(let reason): Output.say("\(relation.displayName): left alone, \(reason)")
                case .failed(let problem):
                    failed = true
                    Output.say("\(relation.displayName): not done: \(problem.message)")
                }
            }
            let done = outcomes.filter { if case .failed = $0.1 { return false } else { return true } }.count
            if remove {
                if !table.isEmpty {
                    Output.say("Removed the triggers of \(done) of \(outcomes.count) tables.")
                } else if schemaDropped {
                    Output.say("Removed the triggers, the history journal and the schema \(NotifySetup.schema).")
                } else {
                    Output.say("Removed the triggers, the functions and the history journal; the schema \(NotifySetup.schema) holds other things of yours and was kept.")
                }
            } else {
                let announced = outcomes.filter { $0.1 == .installed }.count
                Output.say("\(announced) of \(outcomes.count) tables and views announce their changes on the channel \(NotifySetup.channel); editors on the others poll.")
            }
            if failed {
                Output.warn("cardfile: \(NotifySetup.rightsNeeded).")
                throw ExitCode(1)
            }
        }
    }
}
