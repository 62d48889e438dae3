import Foundation
import GRDBSQLite

/// Values as bytes, in the layout the C capture writes (csqlite_support.c): the storage class
/// in a byte (SQLite's type code), then 8 bytes for a number, or a 4-byte length and the bytes
/// for text and blobs, in the machine's byte order. The journal packs its record changes the
/// same way, so one reader reads both. PostgreSQL's two kinds SQLite has not take codes of
/// their own after SQLite's five: a decimal as its text, a boolean as one byte.
enum ValueBytes {
    static let decimalCode: UInt8 = 6
    static let booleanCode: UInt8 = 7

    static func append(_ value: Value, to data: inout Data) {
        switch value {
        case .null: data.append(UInt8(SQLITE_NULL))
        case .integer(let number):
            data.append(UInt8(SQLITE_INTEGER))
            withUnsafeBytes(of: number) { data.append(contentsOf: $0) }
        case .real(let number):
            data.append(UInt8(SQLITE_FLOAT))
            withUnsafeBytes(of: number) { data.append(contentsOf: $0) }
        case .text(let text):
            data.append(UInt8(SQLITE_TEXT))
            append(bytes: Array(text.utf8), to: &data)
        case .blob(let blob):
            data.append(UInt8(SQLITE_BLOB))
            append(bytes: [UInt8](blob), to: &data)
        case .decimal(let text):
            data.append(decimalCode)
            append(bytes: Array(text.utf8), to: &data)
        case .boolean(let flag):
            data.append(booleanCode)
            data.append(flag ? 1 : 0)
        }
    }

    static func append(count: Int, to data: inout Data) {
        withUnsafeBytes(of: UInt32(count)) { data.append(contentsOf: $0) }
    }

    static func append(bytes: [UInt8], to data: inout Data) {
        append(count: bytes.count, to: &data)
        data.append(contentsOf: bytes)
    }

    /// Reads the layout; each read is nil past the end.
    struct Reader {
        let raw: UnsafeRawBufferPointer
        var offset = 0

        var isAtEnd: Bool { offset >= raw.count }

        mutating func take(_ count: Int) -> UnsafeRawBufferPointer? {
            guard count >= 0, offset + count <= raw.count else { return nil }
            defer { offset += count }
            return UnsafeRawBufferPointer(rebasing: raw[offset..<(offset + count)])
        }

        mutating func byte() -> UInt8? { take(1)?.first }
        mutating func int32() -> Int32? { take(4).map { $0.loadUnaligned(as: Int32.self) } }
        mutating func int64() -> Int64? { take(8).map { $0.loadUnaligned(as: Int64.self) } }
        mutating func count() -> Int? { int32().map { Int(UInt32(bitPattern: $0)) } }
        mutating func string() -> String? {
            guard let count = count(), let data = take(count) else { return nil }
            return String(decoding: data, as: UTF8.self)
        }

        mutating func value() -> Value? {
            guard let type = byte() else { return nil }
            if type == ValueBytes.decimalCode { return string().map(Value.decimal) }
            if type == ValueBytes.booleanCode { return byte().map { .boolean($0 != 0) } }
            switch Int32(type) {
            case SQLITE_INTEGER: return int64().map(Value.integer)
            case SQLITE_FLOAT: return take(8).map { .real($0.loadUnaligned(as: Double.self)) }
            case SQLITE_TEXT: return string().map(Value.text)
            case SQLITE_BLOB:
                guard let count = count(), let data = take(count) else { return nil }
                return .blob(Data(data))
            default: return .null
            }
        }
    }
}

/// A record change's key and fields packed into one blob, as the journal keeps them: one row
/// per record change rather than one per field (a form's save cost the journal's thread four
/// inserts more, on a machine whose other core is the one saving).
///
/// The layout: the key's count, then each value; the fields' count, then for each its name,
/// whether it has an old value and that value, whether it has a new one and that value
/// (values as ``ValueBytes`` writes them).
enum ChangePacking {
    static func pack(key: [Value], fields: [RecordedChange.Field]) -> Data {
        var data = Data()
        data.reserveCapacity(16 + fields.count * 24)
        ValueBytes.append(count: key.count, to: &data)
        for value in key { ValueBytes.append(value, to: &data) }
        ValueBytes.append(count: fields.count, to: &data)
        for field in fields {
            ValueBytes.append(bytes: Array(field.name.utf8), to: &data)
            data.append(field.old == nil ? 0 : 1)
            if let old = field.old { ValueBytes.append(old, to: &data) }
            data.append(field.new == nil ? 0 : 1)
            if let new = field.new { ValueBytes.append(new, to: &data) }
        }
        return data
    }

    /// The key and fields of `data`; nil when it is not a packing of this layout.
    static func unpack(_ data: Data) -> (key: [Value], fields: [RecordedChange.Field])? {
        data.withUnsafeBytes { raw in
            var reader = ValueBytes.Reader(raw: raw)
            guard let keyCount = reader.count() else { return nil }
            var key: [Value] = []
            for _ in 0..<keyCount {
                guard let value = reader.value() else { return nil }
                key.append(value)
            }
            guard let fieldCount = reader.count() else { return nil }
            var fields: [RecordedChange.Field] = []
            for _ in 0..<fieldCount {
                guard let name = reader.string() else { return nil }
                var sides: [Value?] = []
                for _ in 0..<2 {
                    guard let has = reader.byte() else { return nil }
                    guard has != 0 else {
                        sides.append(Optional<Value>.none)
                        continue
                    }
                    guard let value = reader.value() else { return nil }
                    sides.append(value)
                }
                fields.append(.init(name: name, old: sides[0], new: sides[1]))
            }
            return (key, fields)
        }
    }
}
