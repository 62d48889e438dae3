import Foundation

/// A record change's key and fields packed into one blob, as the journal keeps them: one row
/// per record change rather than one per field (a form's save cost the journal's thread four
/// inserts more, on a machine whose other core is the one saving).
///
/// The layout: the key's count, then each value; the fields' count, then for each its name,
/// whether it has an old value and that value, whether it has a new one and that value. A
/// value is its storage class in a byte, then 8 bytes for a number, or a 4-byte length and
/// the bytes for text and blobs (little-endian throughout).
enum ChangePacking {
    static func pack(key: [Value], fields: [RecordedChange.Field]) -> Data {
        var data = Data()
        data.reserveCapacity(16 + fields.count * 24)
        put(UInt32(key.count), into: &data)
        for value in key { put(value, into: &data) }
        put(UInt32(fields.count), into: &data)
        for field in fields {
            put(bytes: Array(field.name.utf8), into: &data)
            data.append(field.old == nil ? 0 : 1)
            if let old = field.old { put(old, into: &data) }
            data.append(field.new == nil ? 0 : 1)
            if let new = field.new { put(new, into: &data) }
        }
        return data
    }

    /// The key and fields of `data`; nil when it is not a packing of this layout.
    static func unpack(_ data: Data) -> (key: [Value], fields: [RecordedChange.Field])? {
        var reader = Reader(bytes: [UInt8](data))
        guard let keyCount = reader.count() else { return nil }
        var key: [Value] = []
        for _ in 0..<keyCount {
            guard let value = reader.value() else { return nil }
            key.append(value)
        }
        guard let fieldCount = reader.count() else { return nil }
        var fields: [RecordedChange.Field] = []
        for _ in 0..<fieldCount {
            guard let name = reader.text(), let hasOld = reader.byte() else { return nil }
            var old: Value?
            if hasOld != 0 {
                guard let value = reader.value() else { return nil }
                old = value
            }
            guard let hasNew = reader.byte() else { return nil }
            var new: Value?
            if hasNew != 0 {
                guard let value = reader.value() else { return nil }
                new = value
            }
            fields.append(.init(name: name, old: old, new: new))
        }
        return (key, fields)
    }

    private static func put(_ number: UInt32, into data: inout Data) {
        withUnsafeBytes(of: number.littleEndian) { data.append(contentsOf: $0) }
    }

    private static func put(_ number: UInt64, into data: inout Data) {
        withUnsafeBytes(of: number.littleEndian) { data.append(contentsOf: $0) }
    }

    private static func put(bytes: [UInt8], into data: inout Data) {
        put(UInt32(bytes.count), into: &data)
        data.append(contentsOf: bytes)
    }

    private static func put(_ value: Value, into data: inout Data) {
        switch value {
        case .null: data.append(0)
        case .integer(let number):
            data.append(1)
            put(UInt64(bitPattern: number), into: &data)
        case .real(let number):
            data.append(2)
            put(number.bitPattern, into: &data)
        case .text(let text):
            data.append(3)
            put(bytes: Array(text.utf8), into: &data)
        case .blob(let blob):
            data.append(4)
            put(bytes: [UInt8](blob), into: &data)
        }
    }

    private struct Reader {
        let bytes: [UInt8]
        var offset = 0

        mutating func byte() -> UInt8? {
            guard offset < bytes.count else { return nil }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func take(_ count: Int) -> ArraySlice<UInt8>? {
            guard count >= 0, offset + count <= bytes.count else { return nil }
            defer { offset += count }
            return bytes[offset..<(offset + count)]
        }

        mutating func count() -> Int? {
            take(4).map { slice in Int(slice.reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }) }
        }

        mutating func number() -> UInt64? {
            take(8).map { slice in slice.reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) } }
        }

        mutating func text() -> String? {
            guard let count = count(), let slice = take(count) else { return nil }
            return String(decoding: slice, as: UTF8.self)
        }

        mutating func value() -> Value? {
            switch byte() {
            case 0: return .null
            case 1: return number().map { .integer(Int64(bitPattern: $0)) }
            case 2: return number().map { .real(Double(bitPattern: $0)) }
            case 3: return text().map(Value.text)
            case 4:
                guard let count = count(), let slice = take(count) else { return nil }
                return .blob(Data(slice))
            default: return nil
            }
        }
    }
}
