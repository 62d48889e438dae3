import Foundation

/// One field of a delimited file: its text, and whether it was quoted. An empty unquoted field
/// is NULL; a quoted empty field (`""`) is the empty string.
public struct CSVField: Hashable, Sendable {
    public var text: String
    public var quoted: Bool

    public init(_ text: String, quoted: Bool = false) {
        self.text = text
        self.quoted = quoted
    }
}

/// Reads records from a delimited file (RFC 4180 CSV, TSV, or another delimiter) as a stream:
/// memory holds one buffer and one record, whatever the file's size.
///
/// Quoted fields may hold delimiters, line breaks and doubled quotes; records end with LF or
/// CRLF. Parsing runs on UTF-8 bytes (the input is transcoded first when it is Latin-1 or
/// UTF-16), and each field is checked as UTF-8, so invalid bytes are a record error naming the
/// line, never silent garbage.
///
/// Written here rather than taken from the local packages: CSV.swift (yaslab) streams but
/// returns plain strings, losing the quoted/unquoted difference that tells NULL from the empty
/// string, and SwiftCSV reads the whole file into one string. Throughput measured in
/// `cardfile-bench import`.
struct CSVReader {
    private var source: ByteSource
    let delimiter: UInt8

    /// One record, or what was wrong with it.
    enum Outcome {
        case record([CSVField], line: Int)
        case problem(String, line: Int)
    }

    init(source: ByteSource, delimiter: UInt8) {
        self.source = source
        self.delimiter = delimiter
    }

    /// The line the next record starts on (1-based).
    private(set) var line = 1

    /// Bytes of the file read so far.
    var bytesRead: Int { source.consumed }

    /// The next record; nil at the end of the file.
    mutating func next() throws -> Outcome? {
        var record = CSVRecord()
        switch try read(into: &record) {
        case .record(let line)?: return .record(record.fields, line: line)
        case .problem(let reason, let line)?: return .problem(reason, line: line)
        case nil: return nil
        }
    }

    /// How reading one record into a ``CSVRecord`` went.
    enum Status {
        /// The record is in the buffer; it started on `line`.
        case record(line: Int)
        case problem(String, line: Int)
    }

    /// Reads the next record into `record`, replacing what it held (its storage is reused,
    /// so a long import allocates nothing here once the buffer has grown); nil at the end of
    /// the file.
    mutating func read(into record: inout CSVRecord) throws -> Status? {
        guard try source.peek() != nil else { return nil }
        let startLine = line
        source.beginRecord(line: startLine)
        record.removeAll()
        var fieldStart = 0
        var quoted = false

        func finishField() {
            record.ends.append(record.bytes.count)
            record.quoted.append(quoted)
            fieldStart = record.bytes.count
            quoted = false
        }

        while true {
            // An unquoted stretch: up to a delimiter, a line feed or a quote.
            guard let stop = try source.append(into: &record.bytes, until: delimiter, 0x0A, UInt8(ascii: "\"")) else {
                finishField()
                break
            }
            if stop == UInt8(ascii: "\"") {
                guard record.bytes.count == fieldStart else {
                    // A quote inside an unquoted field is data, as Python's strict reader takes it.
                    record.bytes.append(stop)
                    continue
                }
                quoted = true
                let quoteLine = line
                guard try readQuoted(into: &record) else {
                    // The quote never closes. Only this record is lost: reading goes on from
                    // the line after the one the quote opened on, not from the file's end.
                    if source.replay() { line = quoteLine + 1 }
                    return .problem("field \(record.count + 1): unterminated quote (opened on line \(quoteLine), it never closes)", line: startLine)
                }
                // RFC 4180: after the closing quote comes a delimiter, the line's end or the
                // file's end. Anything else is an error, never quietly kept.
                guard let after = try source.next() else {
                    finishField()
                    break
                }
                if after == delimiter {
                    finishField()
                    continue
                }
                var end = after
                if end == 0x0D {
                    switch try source.peek() {
                    case 0x0A?: end = try source.next()!
                    case nil: end = 0x0A                           // CR as the file's last byte
                    default: break
                    }
                }
                if end == 0x0A {
                    line += 1
                    finishField()
                    break
                }
                let field = record.count + 1
                try skipRestOfLine()
                return .problem(
                    "field \(field): \(Self.describe(after)) follows the closing quote (a quote inside a quoted field is written twice: \"\")",
                    line: startLine)
            }
            if stop == delimiter {
                finishField()
                continue
            }
            // A line feed ends the record (CRLF too; a CR inside quotes is data).
            line += 1
            if record.bytes.count > fieldStart, record.bytes.last == 0x0D {
                record.bytes.removeLast()
            }
            finishField()
            break
        }
        if let problem = record.problem() { return .problem(problem, line: startLine) }
        return .record(line: startLine)
    }

    /// Reads a quoted field's text, after its opening quote, up to and including the closing
    /// quote; `""` is a quote inside. False when the input ends first. From the field's first
    /// line feed on, the source keeps a copy of what it delivers, so that an unclosed quote
    /// can hand those lines back (see ``ByteSource/replay()``); a closed field drops the copy.
    private mutating func readQuoted(into record: inout CSVRecord) throws -> Bool {
        while let end = try source.append(into: &record.bytes, until: UInt8(ascii: "\""), 0x0A, UInt8(ascii: "\"")) {
            if end == 0x0A {
                line += 1
                record.bytes.append(end)
                source.startKeeping()
                continue
            }
            guard try source.peek() == UInt8(ascii: "\"") else {
                source.stopKeeping()
                return true
            }
            _ = try source.next()
            record.bytes.append(end)
        }
        return false
    }

    /// After a malformed record: skips to the end of its line, so the next record starts on
    /// the next line.
    private mutating func skipRestOfLine() throws {
        var discarded: [UInt8] = []
        if try source.append(into: &discarded, until: 0x0A, 0x0A, 0x0A) != nil { line += 1 }
    }

    /// A byte as a message names it.
    static func describe(_ byte: UInt8) -> String {
        switch byte {
        case 0x09: return "a tab"
        case 0x0D: return "a carriage return without a line feed"
        case 0x20: return "a space"
        case 0x21...0x7E: return "`\(Character(Unicode.Scalar(byte)))`"
        default: return String(format: "the byte 0x%02X", byte)
        }
    }
}

/// One record of a delimited file as bytes: every field's bytes one after another, where
/// each ends, and whether it was quoted.
struct CSVRecord {
    var bytes: [UInt8] = []
    /// Where each field ends in ``bytes``.
    var ends: [Int] = []
    var quoted: [Bool] = []

    var count: Int { ends.count }

    mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        ends.removeAll(keepingCapacity: true)
        quoted.removeAll(keepingCapacity: true)
    }

    func range(of field: Int) -> Range<Int> {
        (field == 0 ? 0 : ends[field - 1])..<ends[field]
    }

    /// The field's text (the record was checked to be UTF-8).
    func text(of field: Int) -> String {
        String(decoding: bytes[range(of: field)], as: UTF8.self)
    }

    func isEmpty(_ field: Int) -> Bool { range(of: field).isEmpty }

    var fields: [CSVField] {
        (0..<count).map { CSVField(text(of: $0), quoted: quoted[$0]) }
    }

    /// What makes the record unreadable: a field that is not UTF-8 or holds a NUL byte.
    /// ASCII without NUL, the common case, is one pass over the bytes.
    func problem() -> String? {
        let plain = bytes.withUnsafeBufferPointer { buffer in
            var ascii = true
            for byte in buffer where byte == 0 || byte >= 0x80 {
                ascii = false
                break
            }
            return ascii
        }
        if plain { return nil }
        for field in 0..<count {
            let slice = bytes[range(of: field)]
            if String(validating: slice, as: UTF8.self) == nil {
                return "field \(field + 1) is not valid UTF-8 text (is the file in another encoding? try --encoding latin1)"
            }
            if slice.contains(0) { return "field \(field + 1) holds a NUL byte" }
        }
        return nil
    }
}

/// A record longer than the import allows (an endless input, such as `/dev/zero`, or a file
/// that is not text): the import stops there, naming the line.
struct RecordTooLong: Error, LocalizedError {
    let line: Int
    let limit: Int

    var errorDescription: String? {
        "the record starting on line \(line) is longer than \(ValueSize.words(limit)) (the most one record may hold; is this a text file?)"
    }
}

/// Bytes from a file, read in large blocks, with one byte of look-ahead. The file's text is
/// delivered as UTF-8: Latin-1 and UTF-16 (either byte order, by its BOM) are transcoded as
/// they are read, and a UTF-8 BOM is skipped.
struct ByteSource {
    enum Encoding: String, Sendable, CaseIterable {
        case utf8, latin1, utf16
    }

    private let handle: FileHandle
    private var buffer: [UInt8] = []
    private var position = 0
    private var atEnd = false
    private var encoding: Encoding
    private var littleEndian = true
    private var pendingUTF16: [UInt8] = []
    private var highSurrogate: UInt16?
    /// Bytes read from the file so far (for progress).
    private(set) var consumed: Int = 0
    static let blockSize = 1 << 16
    /// The most bytes one record may take (see ``ImportOptions/maxRecordBytes``).
    private let recordLimit: Int
    /// Bytes handed to the reader so far, and where the current record started among them.
    private var delivered = 0
    private var recordStart = 0
    private var recordLine = 1
    /// The first block of the input, for sniffing (a delimiter) without reading it twice.
    private(set) var firstBlock: [UInt8] = []
    /// While set, a copy of every byte delivered (see ``startKeeping()``).
    private var kept: [UInt8]?

    init(handle: FileHandle, encoding: Encoding?, recordLimit: Int = ImportOptions.defaultMaxRecordBytes) throws {
        self.handle = handle
        self.recordLimit = recordLimit
        // The first block is read as it is on disk: its byte-order mark is looked for in
        // the file's own bytes, before any transcoding (a given --encoding utf16 once read a
        // big-endian file as little-endian, and took a little-endian mark for UTF-8's).
        self.encoding = .utf8
        try fill()
        let raw = buffer
        self.encoding = encoding ?? .utf8
        // A byte-order mark decides (and is not data).
        if raw.starts(with: [0xEF, 0xBB, 0xBF]) {
            position = 3
            self.encoding = .utf8
        } else if raw.starts(with: [0xFF, 0xFE]) || raw.starts(with: [0xFE, 0xFF]), encoding == nil || encoding == .utf16 {
            littleEndian = raw[0] == 0xFF
            self.encoding = .utf16
            position = 0
            buffer = transcode(Array(raw[2...]), final: atEnd)
        } else if self.encoding != .utf8 {
            // No mark: the encoding given (UTF-16 without a mark is read little-endian).
            position = 0
            buffer = self.encoding == .latin1 ? Self.latin1ToUTF8(raw) : transcode(raw, final: atEnd)
        }
        firstBlock = buffer
    }

    /// A record starts here, on `line`: from now on it may take ``recordLimit`` bytes.
    mutating func beginRecord(line: Int) {
        recordStart = delivered
        recordLine = line
    }

    private func checkRecordLength() throws {
        if delivered - recordStart > recordLimit { throw RecordTooLong(line: recordLine, limit: recordLimit) }
    }

    /// From here on, keeps a copy of what is delivered, until ``stopKeeping()``; a no-op when
    /// already keeping. Only a quoted field that spans lines keeps anything, so the common
    /// path copies nothing.
    mutating func startKeeping() {
        if kept == nil { kept = [] }
    }

    mutating func stopKeeping() {
        kept = nil
    }

    /// Hands back what was kept: it is delivered again, ahead of the unread input. False when
    /// nothing was being kept.
    mutating func replay() -> Bool {
        guard let kept else { return false }
        self.kept = nil
        buffer = kept + buffer[position...]
        position = 0
        delivered -= kept.count
        return true
    }

    /// The encoding in use (after looking at the byte-order mark).
    var activeEncoding: Encoding { encoding }

    mutating func peek() throws -> UInt8? {
        if position >= buffer.count { try fill() }
        return position < buffer.count ? buffer[position] : nil
    }

    mutating func next() throws -> UInt8? {
        if position >= buffer.count { try fill() }
        guard position < buffer.count else { return nil }
        delivered += 1
        if delivered - recordStart > recordLimit { try checkRecordLength() }
        defer { position += 1 }
        kept?.append(buffer[position])
        return buffer[position]
    }

    /// Appends bytes to `bytes` up to (not including) the first of `a`, `b` or `c`, which is
    /// consumed and returned; nil at the end of the input. Scans whole blocks at a time: the
    /// byte-at-a-time path cost an import most of its parsing time.
    mutating func append(into bytes: inout [UInt8], until a: UInt8, _ b: UInt8, _ c: UInt8) throws -> UInt8? {
        while true {
            if position >= buffer.count { try fill() }
            guard position < buffer.count else { return nil }
            let found: (stop: UInt8, at: Int)? = buffer.withUnsafeBufferPointer { block in
                var index = position
                let end = block.count
                while index < end {
                    let byte = block[index]
                    if byte == a || byte == b || byte == c { return (byte, index) }
                    index += 1
                }
                return nil
            }
            if let found {
                bytes.append(contentsOf: buffer[position..<found.at])
                kept?.append(contentsOf: buffer[position...found.at])
                delivered += found.at + 1 - position
                position = found.at + 1
                try checkRecordLength()
                return found.stop
            }
            bytes.append(contentsOf: buffer[position...])
            kept?.append(contentsOf: buffer[position...])
            delivered += buffer.count - position
            position = buffer.count
            try checkRecordLength()
        }
    }

    private mutating func fill() throws {
        guard !atEnd else {
            buffer = []
            position = 0
            return
        }
        let data = try handle.read(upToCount: Self.blockSize) ?? Data()
        consumed += data.count
        if data.isEmpty { atEnd = true }
        let raw = [UInt8](data)
        switch encoding {
        case .utf8: buffer = raw
        case .latin1: buffer = Self.latin1ToUTF8(raw)
        case .utf16: buffer = transcode(raw, final: data.isEmpty)
        }
        position = 0
        if buffer.isEmpty, !atEnd { try fill() }
    }

    private static func latin1ToUTF8(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + bytes.count / 8)
        for byte in bytes {
            if byte < 0x80 {
                out.append(byte)
            } else {
                out.append(0xC0 | (byte >> 6))
                out.append(0x80 | (byte & 0x3F))
            }
        }
        return out
    }

    /// UTF-16 to UTF-8, keeping an odd byte or a lone high surrogate for the next block. An
    /// unpaired surrogate becomes an invalid UTF-8 byte, so the record it is in is reported
    /// rather than quietly changed.
    private mutating func transcode(_ raw: [UInt8], final: Bool) -> [UInt8] {
        let bytes = pendingUTF16 + raw
        let usable = bytes.count - bytes.count % 2
        pendingUTF16 = Array(bytes[usable...])
        var out: [UInt8] = []
        out.reserveCapacity(usable)
        var index = 0
        while index < usable {
            let unit = littleEndian ? UInt16(bytes[index]) | UInt16(bytes[index + 1]) << 8 : UInt16(bytes[index]) << 8 | UInt16(bytes[index + 1])
            index += 2
            if let high = highSurrogate {
                highSurrogate = nil
                if (0xDC00...0xDFFF).contains(unit) {
                    let scalar = 0x10000 + ((UInt32(high) - 0xD800) << 10) + (UInt32(unit) - 0xDC00)
                    UTF8.encode(Unicode.Scalar(scalar)!) { out.append($0) }
                    continue
                }
                out.append(0xFF)                                   // an unpaired surrogate
            }
            if (0xD800...0xDBFF).contains(unit) {
                highSurrogate = unit
            } else if (0xDC00...0xDFFF).contains(unit) {
                out.append(0xFF)
            } else {
                UTF8.encode(Unicode.Scalar(unit)!) { out.append($0) }
            }
        }
        if final, highSurrogate != nil || !pendingUTF16.isEmpty {
            out.append(0xFF)
            highSurrogate = nil
            pendingUTF16 = []
        }
        return out
    }
}
