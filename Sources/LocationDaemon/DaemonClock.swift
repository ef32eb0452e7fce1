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
    func unixTime(of instant: Instant) -> Double {
        unixNow() - now().since(instant).seconds
    }
}
