import ArgumentParser
import CardfileStore
import CardfileTerminal
import Foundation

extension Cardfile {
    /// `cardfile merge BASE OURS THEIRS`: git's merge driver for database files.
    struct Merge: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Merge THEIRS into OURS, both changed from BASE, record by record (git's merge driver: %O %A %B).",
            discussion: """
                A record changed on one side takes that side; a field changed on both sides to \
                different values, a record deleted on one side and changed on the other, or \
                added on both sides differently, is contested. With nothing contested, the \
                merge is written into OURS in one transaction (status 0). Contested records \
                are listed and nothing is written (status 1). Different schemas are refused \
                (status 2).
                """)

        @Argument(help: "The common ancestor (git's %O).")
        var base: String

        @Argument(help: "Our version, where the merge is written (git's %A).")
        var ours: String

        @Argument(help: "Their version (git's %B).")
        var theirs: String

        @Flag(name: .long, help: "Never ask on the terminal: list contested records and write nothing (choosing on the terminal is not built yet, so this is what happens either way).")
        var noInteractive = false

        func run() throws {
            let baseFile: Container, oursFile: Container, theirsFile: Container
            do {
                baseFile = try Container(path: base, options: StoreOptions(createIfMissing: false, readOnly: true))
                theirsFile = try Container(path: theirs, options: StoreOptions(createIfMissing: false, readOnly: true))
                oursFile = try Container(path: ours, options: StoreOptions(createIfMissing: false))
            } catch {
                throw fail(error.message)
            }
            if let problem = DatabaseMerge.schemaProblem(base: baseFile, ours: oursFile, theirs: theirsFile) { throw fail(problem) }
            let plan: DatabaseMerge.Plan
            do {
                plan = try DatabaseMerge.plan(base: baseFile, ours: oursFile, theirs: theirsFile)
            } catch {
                throw fail(error.message)
            }
            let onTerminal = isatty(1) != 0
            func say(_ text: String) {
                print(onTerminal ? TerminalText.visible(text) : text)
            }
            for note in plan.notes { say("note: \(note)") }
            guard plan.contests.isEmpty else {
                // (Choosing on the terminal, per field, is not built yet: contested records are
                // listed whether or not one is available.)
                say("cardfile merge: \(plan.contests.count) contested record\(plan.contests.count == 1 ? "" : "s"); nothing was written to \(ours).")
                for contest in plan.contests {
                    let key = contest.key.map { DiffText.shown($0) }.joined(separator: "/")
                    say("\(contest.table) \(key): \(contest.reason)")
                    let fields = contest.contested.isEmpty ? Array(contest.columns.indices) : contest.contested
                    for field in fields {
                        func value(_ row: [Value]?) -> String { row.map { DiffText.shown($0[field]) } ?? "(absent)" }
                        say("  \(contest.columns[field]): original \(value(contest.original)), ours \(value(contest.mine)), theirs \(value(contest.theirs))")
                    }
                }
                throw ExitCode(1)
            }
            do {
                try DatabaseMerge.apply(plan, to: oursFile)
            } catch .statementNotRun(let reason) {
                // A record left pointing at a missing one: a conflict as git sees it.
                say("cardfile merge: \(reason).")
                throw ExitCode(1)
            } catch {
                throw fail(error.message)
            }
            say("cardfile merge: \(plan.writes.count) change\(plan.writes.count == 1 ? "" : "s") of theirs written to \(ours).")
        }
    }
}
