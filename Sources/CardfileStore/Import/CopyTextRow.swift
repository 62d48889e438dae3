/// One row in the text format of PostgreSQL's `COPY … FROM STDIN`: fields separated by tabs,
/// `\N` for NULL, backslash, tab, line feed and carriage return escaped (`\\`, `\t`, `\n`,
/// `\r`), and a line feed at the end.
///
/// An engine whose import takes this format (``SQLDialect/importsCopyText``) gets a delimited
/// file's rows already in it (``Importer/PendingRow/copyText``), made on the reading thread
/// straight from the file's bytes: no string or ``Value`` per field, and the writing thread
/// only copies bytes. A row is one line, so the server's `line N` of a refusal is row N.
package enum CopyTextRow {
    /// Appends one field's bytes (UTF-8, no NUL), escaped. Most fields need no escape and are
    /// copied whole.
    package static func appendField(_ field: UnsafeBufferPointer<UInt8>, to row: inout [UInt8]) {
        var plain = true
        for byte in field where byte == 0x5C || byte == 0x09 || byte == 0x0A || byte == 0x0D {
            plain = false
            break
        }
        if plain {
            row.append(contentsOf: field)
            return
        }
        for byte in field {
            switch byte {
            case 0x5C: row.append(0x5C); row.append(0x5C)
            case 0x09: row.append(0x5C); row.append(UInt8(ascii: "t"))
            case 0x0A: row.append(0x5C); row.append(UInt8(ascii: "n"))
            case 0x0D: row.append(0x5C); row.append(UInt8(ascii: "r"))
            default: row.append(byte)
            }
        }
    }

    /// Appends `text`, escaped.
    package static func appendField(_ text: String, to row: inout [UInt8]) {
        var text = text
        text.withUTF8 { appendField($0, to: &row) }
    }

    /// The index of the first field of `row` that is NULL where `required` (by field) says
    /// it may not be; nil when there is none. One pass over the bytes.
    package static func firstNull(in row: ArraySlice<UInt8>, required: [Bool]) -> Int? {
        var field = 0
        var start = row.startIndex
        var index = row.startIndex
        while index < row.endIndex {
            let byte = row[index]
            if byte == 0x09 || byte == 0x0A {
                if field < required.count, required[field], index - start == 2, row[start] == 0x5C, row[start + 1] == UInt8(ascii: "N") {
                    return field
                }
                field += 1
                start = index + 1
            }
            index += 1
        }
        return nil
    }

    /// Appends NULL (`\N`).
    package static func appendNull(to row: inout [UInt8]) {
        row.append(0x5C)
        row.append(UInt8(ascii: "N"))
    }

    /// The values of a row this format holds (one made by the append functions): NULL or
    /// text, as the server reads them before its input functions do. For the few rows an
    /// import must send another way (a refused copy, tried again as statements).
    package static func values(of row: ArraySlice<UInt8>) -> [Value] {
        // A tab in a value is escaped: every tab ends a field. A value's own `\N` is `\\N`.
        let line = row.last == 0x0A ? row.dropLast() : row
        return line.split(separator: 0x09, omittingEmptySubsequences: false).map { field in
            field.elementsEqual([0x5C, UInt8(ascii: "N")]) ? .null : .text(String(decoding: unescaped(field), as: UTF8.self))
        }
    }

    /// A field's bytes without its escapes.
    private static func unescaped(_ field: ArraySlice<UInt8>) -> [UInt8] {
        guard field.contains(0x5C) else { return Array(field) }
        var out: [UInt8] = []
        out.reserveCapacity(field.count)
        var index = field.startIndex
        while index < field.endIndex {
            let byte = field[index]
            guard byte == 0x5C, index + 1 < field.endIndex else {
                out.append(byte)
                index += 1
                continue
            }
            switch field[index + 1] {
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            default: out.append(field[index + 1])
            }
            index += 2
        }
        return out
    }
}
