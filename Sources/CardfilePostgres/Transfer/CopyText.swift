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

    /// `text` with COPY's four escapes. Most fields need none and are copied whole (byte by
    /// byte, a million rows took three times as long as `psql`'s `\copy`).
    static func appendEscaped(_ text: String, to buffer: inout ByteBuffer) {
        let plain = text.utf8.allSatisfy { $0 != 0x5C && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }
        if plain {
            buffer.writeString(text)
            return
        }
        for byte in text.utf8 {
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
