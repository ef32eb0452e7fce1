import Histogram

/// Latencies in nanoseconds, in an HdrHistogram (three significant digits, up to a minute).
struct Latencies {
    private(set) var histogram = Histogram<UInt64>(
        highestTrackableValue: 60_000_000_000,
        numberOfSignificantValueDigits: .three
    )

    mutating func record(nanoseconds: UInt64) {
        _ = histogram.record(min(max(nanoseconds, 1), 60_000_000_000))
    }

    mutating func record(seconds: Double) {
        record(nanoseconds: UInt64(max(seconds, 0) * 1e9))
    }

    var count: UInt64 { histogram.totalCount }

    /// Adds another set's latencies to these.
    mutating func add(_ other: Latencies) {
        histogram.add(other.histogram)
    }

    /// The value at `percentile` (0–100), in seconds.
    func seconds(at percentile: Double) -> Double {
        Double(histogram.valueAtPercentile(percentile)) / 1e9
    }

    var maximum: Double { Double(histogram.max) / 1e9 }

    /// "p50 0.1 ms, p99 0.3 ms, p99.9 1.2 ms".
    func summary(_ percentiles: [Double] = [50, 99, 99.9]) -> String {
        percentiles.map { "p\(Format.percentile($0)) \(Format.milliseconds(seconds(at: $0)))" }.joined(separator: ", ")
    }
}

extension Format {
    static func percentile(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}
