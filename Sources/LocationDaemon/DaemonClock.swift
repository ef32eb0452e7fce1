import LocationCore

#if canImport(Glibc)
import Glibc
#endif

/// The daemon's clocks: `CLOCK_BOOTTIME` for the core's instants (R2), `CLOCK_REALTIME` for the wire's
/// Unix timestamps.
struct DaemonClock: Sendable {
    /// The current boot-time instant.
    func now() -> Instant {
        var spec = timespec()
        clock_gettime(CLOCK_BOOTTIME, &spec)
        return Instant(nanoseconds: Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec))
    }

    /// Unix time in seconds now.
    func unixNow() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }

    /// The Unix time of a boot-time instant, through the offset between the two clocks now.
    ///
    /// The boot-time read is bracketed by two real-time reads, and the tightest of three brackets is used: a
    /// thread preempted between two reads would otherwise shift every timestamp by the time it was off the CPU.
    func unixTime(of instant: Instant) -> Double {
        var best = (gap: Double.infinity, offset: 0.0)
        for _ in 0..<3 {
            let before = unixNow()
            let boot = now()
            let after = unixNow()
            if after - before < best.gap {
                best = (after - before, (before + after) / 2 - Double(boot.nanoseconds) / 1e9)
            }
            if best.gap < 0.000_1 { break }
        }
        return Double(instant.nanoseconds) / 1e9 + best.offset
    }
}
