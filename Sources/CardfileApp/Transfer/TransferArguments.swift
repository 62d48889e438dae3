import ArgumentParser
import CardfileStore
import Foundation

extension ImportOptions.Format: ExpressibleByArgument {}
extension ImportOptions.Mode: ExpressibleByArgument {}
extension ImportOptions.OnError: ExpressibleByArgument {}
extension ImportOptions.Encoding: ExpressibleByArgument {}
extension Exporter.Format: ExpressibleByArgument {}

/// The options of an import, shared by `cardfile import` and the editor's `:import`, so both
/// read the same words the same way.
public struct ImportArguments: ParsableArguments, Sendable {
    @Argument(help: "The file to read.")
    public var file: String

    @Option(name: .long, help: "The file's format (from its extension when left out).")
    public var format: ImportOptions.Format?

    @Option(name: .long, help: "The delimiter of a CSV file (one character, or tab); detected when left out.")
    public var delimiter: String?

    @Flag(name: .long, help: "The first row is data: fields map to columns by position.")
    public var noHeader = false

    @Option(name: .long, help: "The text encoding (UTF-8, or what a byte-order mark says, when left out).")
    public var encoding: ImportOptions.Encoding?

    @Flag(name: .long, help: "Leave out columns the table does not have.")
    public var ignoreUnknown = false

    @Flag(name: .long, help: "Read empty unquoted fields as the empty string, not NULL.")
    public var emptyAsText = false

    @Option(name: .long, help: "What a row whose key exists does: rejected, updated, skipped or replaced.")
    public var mode: ImportOptions.Mode = .insert

    @Option(name: .long, help: "What a bad row does: reported and skipped, or stops the import.")
    public var onError: ImportOptions.OnError = .skip

    @Flag(name: .long, help: "All or nothing, in one transaction (other writers wait).")
    public var atomic = false

    @Flag(name: .long, help: "Make the table when it is missing, with column types inferred from the data.")
    public var create = false

    @Option(name: .long, help: .hidden)
    public var batchSize: Int?

    @Option(name: .long, help: .hidden)
    public var maxRecordBytes: Int = ImportOptions.defaultMaxRecordBytes

    public init() {}

    public func validate() throws {
        if let delimiter, delimiterByte(delimiter) == nil {
            throw ValidationError("--delimiter takes one character (or tab), not \"\(delimiter)\".")
        }
        if let batchSize, batchSize < 1 { throw ValidationError("--batch-size takes a positive number.") }
    }

    /// The import these words describe, into `table`.
    public func options(table: String) -> ImportOptions {
        ImportOptions(table: table, format: format, delimiter: delimiter.flatMap(delimiterByte), header: !noHeader, encoding: encoding,
                      ignoreUnknown: ignoreUnknown, emptyAsText: emptyAsText, mode: mode, onError: onError, atomic: atomic,
                      batchSize: batchSize, create: create, maxRecordBytes: maxRecordBytes)
    }

    private func delimiterByte(_ text: String) -> UInt8? {
        if text == "tab" || text == "\\t" || text == "\t" { return 0x09 }
        return text.utf8.count == 1 ? text.utf8.first : nil
    }
}

/// How rows are written out, shared by `cardfile export` and the editor's `:export`.
public struct ExportFormatArguments: ParsableArguments, Sendable {
    @Option(name: .long, help: "The format (from the file's extension, else csv).")
    public var format: Exporter.Format?

    @Option(name: .long, help: "How NULL is written in CSV and TSV (nothing by default).")
    public var null: String = ""

    public init() {}

    /// A NULL text holding a quote, a comma, a tab or a line break would read back as
    /// something else (or break the row into more fields): refused.
    public func validate() throws {
        if null.unicodeScalars.contains(where: { "\",\t\n\r".unicodeScalars.contains($0) }) {
            throw ValidationError("--null cannot hold a quote, a comma, a tab or a line break: it would read back as a value, or as more fields.")
        }
    }

    /// The format: the one asked for, else the one `path`'s extension names, else CSV.
    public func format(for path: String?) -> Exporter.Format {
        if let format { return format }
        let named = path.map(PathText.lowercasedExtension(of:)) ?? ""
        return named == "ndjson" ? .jsonl : Exporter.Format(rawValue: named) ?? .csv
    }
}

/// The editor's `:export FILE [options]`.
public struct ExportArguments: ParsableArguments, Sendable {
    @Argument(help: "The file to write (replaced when it exists, only once the export is complete).")
    public var file: String

    @OptionGroup public var output: ExportFormatArguments

    public init() {}
}

/// Splits a command line into words as a shell would for plain use: spaces separate, single
/// or double quotes keep spaces in a word, a backslash keeps the next character.
/// Returns nil for an unclosed quote.
public func commandWords(_ text: String) -> [String]? {
    var words: [String] = []
    var word = ""
    var inWord = false
    var quote: Character?
    var escaped = false
    for character in text {
        if escaped {
            word.append(character)
            escaped = false
        } else if let open = quote {
            if character == open { quote = nil } else if character == "\\" && open == "\"" { escaped = true } else { word.append(character) }
        } else if character == "\\" {
            escaped = true
            inWord = true
        } else if character == "\"" || character == "'" {
            quote = character
            inWord = true
        } else if character == " " || character == "\t" {
            if inWord { words.append(word) }
            word = ""
            inWord = false
        } else {
            word.append(character)
            inWord = true
        }
    }
    guard quote == nil else { return nil }
    if inWord || escaped { words.append(word) }
    return words
}

/// A path as typed: `~` at its start is the home folder.
public func expandingTilde(_ path: String) -> String {
    guard path == "~" || path.hasPrefix("~/") else { return path }
    return NSHomeDirectory() + path.dropFirst()
}
