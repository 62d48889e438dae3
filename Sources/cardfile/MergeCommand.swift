import ArgumentParser
import CardfileApp
import CardfileCurses
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
                merge is written into OURS in one transaction (status 0). With contested \
                records and a terminal (/dev/tty, since git may redirect standard input), each \
                opens in the conflict dialog to be chosen, then everything is written (status \
                0); Esc stops and writes nothing (status 1). Without a terminal, or with \
                --no-interactive, contested records are listed and nothing is written (status \
                1). Different schemas are refused (status 2).
                """)

        @Argument(help: "The common ancestor (git's %O).")
        var base: String

        @Argument(help: "Our version, where the merge is written (git's %A).")
        var ours: String

        @Argument(help: "Their version (git's %B).")
        var theirs: String

        @Flag(name: .long, help: "Never ask on the terminal: list contested records and write nothing.")
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
            var plan: DatabaseMerge.Plan
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
            var chosen = 0
            // (A record whose key holds NULL is never written: it stays listed.)
            let choosable = !plan.contests.contains { $0.key.contains(where: \.isNull) }
            if !plan.contests.isEmpty, !noInteractive, choosable, let chooser = MergeChooser(contests: plan.contests) {
                switch try Self.choose(chooser) {
                case .chosen(let writes):
                    plan.writes += writes
                    chosen = plan.contests.count
                    plan.contests = []
                case .stopped:
                    say("cardfile merge: stopped; nothing was written to \(ours).")
                    throw ExitCode(1)
                case .noTerminal: break
                }
            }
            guard plan.contests.isEmpty else {
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
            let settled = chosen == 0 ? "" : ", \(chosen) contested record\(chosen == 1 ? "" : "s") as chosen"
            say("cardfile merge: \(plan.writes.count) change\(plan.writes.count == 1 ? "" : "s") written to \(ours)\(settled).")
        }

        enum Choice {
            case chosen([DatabaseMerge.Write])
            case stopped
            case noTerminal
        }

        /// Runs the chooser on the controlling terminal (`/dev/tty`): git runs the driver with
        /// its standard input and output elsewhere, so both are pointed at the terminal while
        /// the dialog is up, then put back.
        static func choose(_ chooser: MergeChooser) throws -> Choice {
            let tty = open("/dev/tty", O_RDWR)
            guard tty >= 0 else { return .noTerminal }
            guard isatty(tty) != 0 else {
                close(tty)
                return .noTerminal
            }
            fflush(nil)
            let (savedInput, savedOutput) = (dup(STDIN_FILENO), dup(STDOUT_FILENO))
            dup2(tty, STDIN_FILENO)
            dup2(tty, STDOUT_FILENO)
            close(tty)
            defer {
                fflush(nil)
                dup2(savedInput, STDIN_FILENO)
                dup2(savedOutput, STDOUT_FILENO)
                close(savedInput)
                close(savedOutput)
            }
            let backend: CursesBackend
            do {
                backend = try CursesBackend(theme: ThemeLoader().load(nil).theme, mouse: false)
            } catch {
                return .noTerminal
            }
            defer { backend.shutdown() }
            var chooser = chooser
            try backend.draw(chooser.render(size: backend.size), cursor: nil)
            while true {
                guard let event = try backend.nextEvent(timeout: nil) else { continue }
                switch event {
                case .key(let key):
                    switch chooser.handle(key) {
                    case .choosing: break
                    case .done: return .chosen(chooser.writes)
                    case .stopped: return .stopped
                    }
                case .terminate: return .stopped
                case .resize, .paste, .mouse: break
                }
                try backend.draw(chooser.render(size: backend.size), cursor: nil)
            }
        }
    }
}
