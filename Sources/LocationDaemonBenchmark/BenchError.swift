#if canImport(Glibc)
import Glibc
#endif

/// Why a scenario could not run; the benchmark then exits non-zero (a missed target does not).
enum BenchError: Error, CustomStringConvertible {
    case system(String, Int32)
    case failed(String)

    var description: String {
        switch self {
        case .system(let call, let code): "\(call) failed: \(String(cString: strerror(code)))"
        case .failed(let message): message
        }
    }
}

/// `CLOCK_MONOTONIC` in seconds: what every interval of the benchmark is measured on.
enum Clock {
    static var now: Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }

    /// `CLOCK_REALTIME` in seconds: Unix time, to compare with the daemon's event timestamps.
    static var unixTime: Double {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }

    /// `CLOCK_MONOTONIC` in nanoseconds, for histograms.
    static var nanoseconds: UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }
}
