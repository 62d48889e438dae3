import Foundation

/// Timing and memory helpers for the benchmarks. Figures are printed, never asserted.
enum Measure {
    /// Seconds taken by `body`.
    static func time(_ body: () throws -> Void) rethrows -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }

    /// Runs `body` `count` times and returns each run's duration in seconds.
    static func samples(_ count: Int, _ body: (Int) throws -> Void) rethrows -> [Double] {
        var samples: [Double] = []
        samples.reserveCapacity(count)
        for index in 0..<count {
            samples.append(try time { try body(index) })
        }
        return samples
    }

    /// The resident set size of this process, in MiB, from /proc.
    static func residentMiB() -> Double { statusMiB("VmRSS:") }

    /// The peak resident set size of this process (VmHWM), in MiB.
    static func peakResidentMiB() -> Double { statusMiB("VmHWM:") }

    /// A size line of /proc/self/status, in MiB (-1 when it cannot be read).
    private static func statusMiB(_ field: String) -> Double {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return -1 }
        for line in status.split(separator: "\n") where line.hasPrefix(field) {
            return (line.split(separator: " ").compactMap { Double($0) }.first ?? -1) / 1024
        }
        return -1
    }
}

/// Percentiles of a set of durations.
struct Distribution {
    let sorted: [Double]

    init(_ samples: [Double]) {
        sorted = samples.sorted()
    }

    func percentile(_ p: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        let index = min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))
        return sorted[index]
    }

    var p50: Double { percentile(0.5) }
    var p99: Double { percentile(0.99) }
    var max: Double { sorted.last ?? .nan }
    var mean: Double { sorted.isEmpty ? .nan : sorted.reduce(0, +) / Double(sorted.count) }
}

/// Formats a duration in seconds with a fitting unit.
func duration(_ seconds: Double) -> String {
    if seconds.isNaN { return "-" }
    if seconds < 1e-3 { return String(format: "%.1f µs", seconds * 1e6) }
    if seconds < 1 { return String(format: "%.2f ms", seconds * 1e3) }
    return String(format: "%.2f s", seconds)
}

/// A printed table of results: what was measured, the figure, the goal.
struct ResultTable {
    private var rows: [(String, String, String)] = []
    let title: String

    init(_ title: String) {
        self.title = title
    }

    mutating func add(_ name: String, _ value: String, goal: String = "") {
        rows.append((name, value, goal))
    }

    func print() {
        let widths = (
            max(8, rows.map(\.0.count).max() ?? 0),
            max(6, rows.map(\.1.count).max() ?? 0)
        )
        Swift.print("\n## \(title)\n")
        Swift.print("| \("measure".padding(toLength: widths.0, withPad: " ", startingAt: 0)) | \("result".padding(toLength: widths.1, withPad: " ", startingAt: 0)) | goal |")
        Swift.print("|\(String(repeating: "-", count: widths.0 + 2))|\(String(repeating: "-", count: widths.1 + 2))|------|")
        for (name, value, goal) in rows {
            Swift.print("| \(name.padding(toLength: widths.0, withPad: " ", startingAt: 0)) | \(value.padding(toLength: widths.1, withPad: " ", startingAt: 0)) | \(goal) |")
        }
    }
}
