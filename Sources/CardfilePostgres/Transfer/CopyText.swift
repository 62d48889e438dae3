import CardfileStore
import NIOCore

/// Rows in `COPY`'s text format: fields separated by tabs, `\N` for NULL, and backslash,
/// tab, newline and carriage return escaped; a row ends with a newline.
enum CopyText {
    static func append(_ values: [Value], to buffer: inout ByteBuffer) {
        for (index, value) in values.enumerated() {
            if index > 0 { buffer.writeInteger(UInt8(0x09)) }
            switch value {
            case .null: buffer.writeStaticString("\\N")
            case .integer(let number): buffer.writeString(String(number))
            case .text(let text), .decimal(let text): appendEscaped(text, to: &buffer)
            default: appendEscaped(PostgresValues.text(value), to: &buffer)
            }
        }
        buffer.writeInteger(UInt8(0x0A))
    }

    /// `text` with COPY's four escapes. Most fields need none and are copied whole, from the
    /// string's own bytes.
    static func appendEscaped(_ text: String, to buffer: inout ByteBuffer) {
        var text = text
        text.withUTF8 { bytes in
            var plain = true
            for byte in bytes where byte == 0x5C || byte == 0x09 || byte == 0x0A || byte == 0x0D {
                plain = false
                break
            }
            if plain {
                buffer.writeBytes(UnsafeRawBufferPointer(bytes))
                return
            }
            for byte in bytes {
                switch byte {
                case 0x5C: buffer.writeStaticString("\\\\")
                case 0x09: buffer.writeStaticString("\\t")
                case 0x0A: buffer.writeStaticString("\\n")
                case 0x0D: buffer.writeStaticString("\\r")
                default: buffer.writeInteger(byte)
                }
            }
        }
    }
}
