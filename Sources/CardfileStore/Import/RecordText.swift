/// One record as text to copy elsewhere, in the export's formats: what `y` and `Y` put on the
/// clipboard.
public enum RecordText {
    /// A value alone, as a person would paste it: text as it is, numbers as written, NULL as
    /// nothing, a blob as `\x` and hex.
    public static func plain(_ value: Value) -> String {
        switch value {
        case .null: return ""
        case .integer(let int): return String(int)
        case .real(let double): return Exporter.realText(double)
        case .text(let text): return text
        case .blob(let data):
            var bytes: [UInt8] = []
            Exporter.appendHex(data, to: &bytes)
            return String(decoding: bytes, as: UTF8.self)
        case .decimal(let text): return text
        case .boolean(let flag): return flag ? "true" : "false"
        }
    }

    /// The values as one line of tab-separated fields. A field holding a tab, a line break or
    /// a double quote is quoted as the importer reads it; NULL is an empty field.
    public static func tsv(_ values: [Value]) -> String {
        values.map { value in
            let text = plain(value)
            guard text.contains(where: { $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" || $0 == "\"" }) else { return text }
            return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        }.joined(separator: "\t")
    }

    /// The record as one JSON object, its keys in column order (as a JSON export writes it).
    public static func json(columns: [String], values: [Value]) -> String {
        var out: [UInt8] = [UInt8(ascii: "{")]
        for (index, name) in columns.enumerated() {
            if index > 0 { out += Array(", ".utf8) }
            Exporter.appendJSONString(name, to: &out)
            out += Array(": ".utf8)
            Exporter.appendJSON(values.indices.contains(index) ? values[index] : .null, to: &out)
        }
        out.append(UInt8(ascii: "}"))
        return String(decoding: out, as: UTF8.self)
    }
}

/// A number of bytes in words: `512 MiB`, `1.5 KiB`, `300 bytes`.
enum ValueSize {
    static func words(_ bytes: Int) -> String {
        let units = ["bytes", "KiB", "MiB", "GiB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        if unit == 0 { return "\(bytes) bytes" }
        return value == value.rounded() ? "\(Int(value)) \(units[unit])" : "\((value * 10).rounded() / 10) \(units[unit])"
    }
}
