import CardfilePostgres
import Foundation

/// The process's own command line, as `ps` and `/proc/PID/cmdline` show it to every user of
/// the machine.
enum ProcessTitle {
    /// Overwrites, in place, the password of any PostgreSQL URL among the program's arguments,
    /// so that `ps` shows `postgres://user:*****@host/db`. The caller copies the arguments
    /// first: `CommandLine.arguments` reads this same memory when first asked.
    ///
    /// What `ps` reads is the block of memory the kernel put the arguments in; its bounds come
    /// from `/proc/self/stat` (`arg_start`, `arg_end`). Only the bytes of an argument change: a
    /// masked argument is written over the old one and the rest of its bytes become NUL, so no
    /// other argument moves.
    static func maskPasswords() {
        guard let (start, end) = argumentBlock(), end > start,
              let base = UnsafeMutablePointer<UInt8>(bitPattern: start) else { return }
        let block = UnsafeMutableBufferPointer(start: base, count: end - start)
        var argumentStart = 0
        while argumentStart < block.count {
            var argumentEnd = argumentStart
            while argumentEnd < block.count, block[argumentEnd] != 0 { argumentEnd += 1 }
            mask(UnsafeMutableBufferPointer(rebasing: block[argumentStart..<argumentEnd]))
            argumentStart = argumentEnd + 1
        }
    }

    private static func mask(_ bytes: UnsafeMutableBufferPointer<UInt8>) {
        let original = String(decoding: bytes, as: UTF8.self)
        let ranges = PostgresURLMask.passwordRanges(in: original, wholeArgument: true)
        guard !ranges.isEmpty else { return }
        let masked = Array(PostgresURLMask.maskedArgument(original).utf8)
        // A password shorter than the mask gives a longer text: then each of its bytes becomes
        // `*` instead, which keeps the length.
        let replacement = masked.count <= bytes.count ? masked : Array(starMasking(original, ranges).utf8)
        for offset in 0..<bytes.count { bytes[offset] = offset < replacement.count ? replacement[offset] : 0 }
    }

    private static func starMasking(_ text: String, _ ranges: [Range<String.Index>]) -> String {
        ranges.reversed().reduce(text) { result, range in
            result.replacingCharacters(in: range, with: String(repeating: "*", count: text[range].utf8.count))
        }
    }

    /// `arg_start` and `arg_end` of `/proc/self/stat` (its 48th and 49th fields; the second,
    /// the program's name in parentheses, may hold spaces, so fields are counted after it).
    private static func argumentBlock() -> (Int, Int)? {
        guard let data = FileManager.default.contents(atPath: "/proc/self/stat") else { return nil }
        let text = String(decoding: data, as: UTF8.self)
        guard let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // fields[0] is the 3rd field.
        guard fields.count > 49 - 3, let start = Int(fields[48 - 3]), let end = Int(fields[49 - 3]) else { return nil }
        return (start, end)
    }
}
