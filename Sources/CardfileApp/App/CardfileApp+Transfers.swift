import ArgumentParser
import CardfileStore
import CardfileTerminal
import Foundation

/// Imports and exports in the background: started from the command line (or the list's
/// keys, which open it with the command typed), shown in the status bar while they run,
/// summed up when they end, with the full report a key away.
extension CardfileApp {
    /// The table an import fills or an export reads: the list's, else the one selected on
    /// the tables screen.
    var transferTable: TableSchema? { list?.table ?? tables?.selectedTable }

    func startImport(_ words: [String], now: ContinuousClock.Instant) {
        if let help = optionsHelp(words, ImportArguments.self, title: ":import FILE [options]") { return overlay = .panel(ReadingPanel(help)) }
        guard refuseSecondTransfer(now: now), let table = transferTable else { return }
        if let reason = readOnlyReason { return show("Read-only: \(reason). Nothing can be imported.", role: .warning, now: now) }
        let arguments: ImportArguments
        do { arguments = try ImportArguments.parse(words) } catch {
            return show(ImportArguments.message(for: error) + " (:import --help lists the options)", role: .warning, now: now)
        }
        if arguments.create {
            return show("--create makes a missing table: use it with cardfile import. Here the rows go into \(table.name).", role: .warning, now: now)
        }
        guard let path = resolvedPath(arguments.file, now: now) else { return }
        let job = TransferJob.startImport(container: container, path: path, options: arguments.options(table: table.name), inbox: inbox, clock: clock)
        transfer = RunningTransfer(job)
        show("Importing \(job.fileName) into \(table.name)\(arguments.atomic ? " all or nothing (saves wait until it ends)" : ""). Keep working; :import cancel stops it.", now: now)
    }

    func startExport(_ words: [String], replacing: Bool, now: ContinuousClock.Instant) {
        if let help = optionsHelp(words, ExportArguments.self, title: ":export FILE [options]") { return overlay = .panel(ReadingPanel(help)) }
        guard refuseSecondTransfer(now: now), let table = transferTable else { return }
        let arguments: ExportArguments
        do { arguments = try ExportArguments.parse(words) } catch {
            return show(ExportArguments.message(for: error) + " (:export --help lists the options)", role: .warning, now: now)
        }
        guard let path = resolvedPath(arguments.file, now: now) else { return }
        let output: OutputFile
        do {
            output = try OutputFile(path: path, replacing: replacing, protecting: [container.path])
        } catch {
            guard case .outputRefused(_, let refusal) = error else { return show(error.message, role: .error, now: now) }
            if refusal == .exists {
                return show("\(PathText.name(of: path)) exists; :export! \(arguments.file) replaces it.", role: .warning, now: now)
            }
            // The status bar has room for the name; the report has the whole path.
            let message = StoreError.outputRefused(path: PathText.name(of: path), refusal).message
            transferReport = TextPanel(title: "Export of \(table.name)", lines: [StoreError.outputRefused(path: path, refusal).message])
            return show("Export failed: \(message)", role: .error, now: now)
        }
        // The list as the person sees it (its marked records when there are marks); from the
        // tables screen, the whole table.
        let shown = list?.table.name == table.name ? list : nil
        let spec = shown?.spec
        let marks = shown?.marks.rules ?? MarkSet()
        let expected: Int?
        if !marks.isEmpty {
            expected = spec?.filter.isEmpty == true ? shown?.marks.count : nil
        } else if spec != nil, case .exact(let count)? = list?.live.window.count {
            expected = count
        } else {
            expected = tables?.counts[table.name]
        }
        let job = TransferJob.startExport(
            container: container, table: table.name, filter: spec?.filter ?? "", sort: spec?.sort ?? [], marks: marks,
            format: arguments.output.format(for: path), null: arguments.output.null, output: output, expectedRows: expected, inbox: inbox, clock: clock)
        transfer = RunningTransfer(job)
        show("Exporting \(marks.isEmpty ? table.name : "the marked records of \(table.name)") to \(job.fileName). :export cancel stops it.", now: now)
    }

    /// A typed file name as a path: `~` is the home folder, a relative name starts from the
    /// working folder. Nil (and a message) for an empty name.
    func resolvedPath(_ typed: String, now: ContinuousClock.Instant) -> String? {
        guard !typed.isEmpty else {
            show("Say which file.", role: .warning, now: now)
            return nil
        }
        let path = expandingTilde(typed)
        guard !path.hasPrefix("/"), let folder = options.workingFolder else { return path }
        return folder.hasSuffix("/") ? folder + path : folder + "/" + path
    }

    /// One transfer at a time: says so and returns false while one runs.
    private func refuseSecondTransfer(now: ContinuousClock.Instant) -> Bool {
        guard let running = transfer?.job else { return true }
        show("\(running.activity.capitalizedFirst) is still running; :\(running.isImport ? "import" : "export") cancel stops it.", role: .warning, now: now)
        return false
    }

    /// The options of `:import` or `:export`, when the words ask for them.
    private func optionsHelp<Arguments: ParsableArguments>(_ words: [String], _ type: Arguments.Type, title: String) -> TextPanel? {
        guard words.contains("--help") || words.contains("-h") else { return nil }
        let text = type.helpMessage(columns: max(40, min(100, size.width - 6)))
        return TextPanel(title: title, lines: text.components(separatedBy: "\n"))
    }

    func cancelTransfer(now: ContinuousClock.Instant) {
        guard let job = transfer?.job else { return show("No import or export is running.", now: now) }
        job.cancel()
        show("Stopping \(job.activity) after the current batch…", now: now)
    }

    /// How long quitting waits for a stopped import or export to finish its batch.
    static let transferStopWait: Duration = .seconds(10)

    /// Asks the running transfer to stop and quits once it has (``receive(_:now:)``), or
    /// after ``transferStopWait``; the screen keeps drawing and answering meanwhile.
    func stopTransferThenQuit(force: Bool, now: ContinuousClock.Instant) {
        guard let job = transfer?.job else { return }
        job.cancel()
        transfer?.quitting = (force, now + Self.transferStopWait)
        notice = Notice(text: "Quitting: waiting for \(job.isImport ? "the import's batch" : "the export's chunk") to finish…", role: .accent, expires: nil)
    }

    /// Stops the running transfer and waits for it (one batch at most, at most
    /// ``transferStopWait``): only for a signal, when the loop is about to end and nobody
    /// watches the screen.
    func stopTransferNow() {
        guard let job = transfer?.job else { return }
        job.cancel()
        job.waitUntilDone(timeout: Self.transferStopWait)
        transfer = nil
    }

    func showReport(now: ContinuousClock.Instant) {
        guard let transferReport else { return show("No import or export has finished yet.", now: now) }
        overlay = .panel(ReadingPanel(transferReport))
    }

    // MARK: - What the thread reports

    func receive(_ update: TransferUpdate, now: ContinuousClock.Instant) -> [AppCommand] {
        switch update {
        case .progress(let id, let progress):
            guard let job = transfer?.job, job.id == id else { return [] }
            transfer?.progress = progress
            if job.isImport { followImport(now: now) }
            return []
        case .finished(let id, let result):
            guard let job = transfer?.job, job.id == id else { return [] }
            let quitting = transfer?.quitting
            transfer = nil
            if job.isImport {
                followImport(now: now)
                // The list shows the end of the import in the frame that says it ended.
                do { _ = try list?.live.update(now: now, immediately: true) } catch { show(error.message, role: .error, now: now) }
            }
            let report = Self.report(of: job, result)
            transferReport = report.panel
            let more = form == nil ? " R shows the report." : " :report shows the report."
            notice = Notice(text: report.summary + (report.panel.lines.count > 1 ? more : ""), role: report.role, expires: now + .seconds(20))
            // Stopped for quitting: now quit (a form may still ask about its edits).
            if let quitting { return quit(force: quitting.force, now: now) }
            return []
        }
    }

    /// Brings the import's committed batches into the view context now, so the open form
    /// follows them as it follows any change made elsewhere (untouched fields update, edited
    /// ones are marked and their save conflicts).
    private func followImport(now: ContinuousClock.Instant) {
        do {
            try view.processPendingChanges()
            // (The form's record may be registered only in its editor, not in the view.)
            form?.followSource()
        } catch {
            show(error.message, role: .error, now: now)
        }
    }

    /// The status bar's words for the running transfer, most telling first:
    /// `importing books.csv 52%`, `120,000 rows`, `84,211/s`, `ETA 3s`.
    var transferStatus: [String] {
        guard let job = transfer?.job else { return [] }
        guard let progress = transfer?.progress else { return [job.activity + "…"] }
        var parts = [job.activity + (progress.fraction.map { " \(Int($0 * 100))%" } ?? "")]
        parts.append("\(ValueText.count(progress.rows)) rows")
        if progress.rowsPerSecond > 0 { parts.append("\(ValueText.count(Int(progress.rowsPerSecond)))/s") }
        if let left = progress.secondsLeft { parts.append("ETA \(Int(left.rounded()))s") }
        return parts
    }

    /// The summary line, the full report and how the notice looks.
    static func report(of job: TransferJob, _ result: TransferResult) -> (summary: String, panel: TextPanel, role: Role) {
        switch result {
        case .imported(let summary):
            let title = "Import of \(job.fileName) into \(job.table)"
            var lines = [summary.sentence.capitalizedFirst + "."]
            if !summary.errors.isEmpty {
                lines += ["", "Rows not imported:"] + summary.errors.map(\.description)
                if summary.rejected > summary.errors.count {
                    lines.append("… and \(ValueText.count(summary.rejected - summary.errors.count)) more (the first \(ImportSummary.errorsKept) are listed).")
                }
            }
            let role: Role = summary.rolledBack || summary.stoppedEarly || summary.rejected > 0 ? .warning : .success
            return ("\(job.fileName): \(summary.sentence).", TextPanel(title: title, lines: lines), role)
        case .exported(let rows, let path, let cancelled):
            if cancelled {
                // The file's name first: a long folder would cut it from the message line.
                let text = "Export cancelled: \(job.fileName) was not written; what stood there is as it was."
                return (text, TextPanel(title: "Export of \(job.table)", lines: [text, "(\(path))"]), .warning)
            }
            let text = "Exported \(ValueText.count(rows)) row\(rows == 1 ? "" : "s") of \(job.table) to \(path)."
            return (text, TextPanel(title: "Export of \(job.table)", lines: [text]), .success)
        case .failed(let message):
            let verb = job.isImport ? "Import" : "Export"
            return ("\(verb) failed: \(message)", TextPanel(title: "\(verb) of \(job.fileName)", lines: [message]), .error)
        }
    }
}

extension TransferJob {
    var isImport: Bool {
        if case .importing = kind { return true }
        return false
    }

    var table: String {
        switch kind {
        case .importing(let table, _), .exporting(let table): return table
        }
    }

    /// True for an all-or-nothing import, which holds the write lock while it writes.
    var holdsTheLock: Bool {
        if case .importing(_, atomic: true) = kind { return true }
        return false
    }

    /// `importing books.csv`, `exporting to out.csv`.
    var activity: String { isImport ? "importing \(fileName)" : "exporting to \(fileName)" }
}

extension String {
    /// The string with its first letter in upper case.
    var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}
