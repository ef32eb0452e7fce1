/// A moment on the daemon's clock: nanoseconds of `CLOCK_BOOTTIME`.
///
/// The core never reads a clock; every event carries the current ``Instant``. Because boot time keeps
/// counting through suspend and is the same in every process of one boot, a stored instant stays
/// meaningful across a daemon restart (SEMANTICS R2).
package struct Instant: Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
    /// Nanoseconds since boot.
    package var nanoseconds: Int64

    package init(nanoseconds: Int64) {
        self.nanoseconds = nanoseconds
    }

    /// An instant `seconds` after boot, for tests and the simulator.
    package static func seconds(_ seconds: Double) -> Instant {
        Instant(nanoseconds: nanosecondsRounded(seconds))
    }

    package static let zero = Instant(nanoseconds: 0)

    /// The instant `duration` later.
    package func adding(_ duration: Span) -> Instant {
        Instant(nanoseconds: nanoseconds &+ duration.nanoseconds)
    }

    /// The span from `other` to `self` (negative when `other` is later).
    package func since(_ other: Instant) -> Span {
        Span(nanoseconds: nanoseconds &- other.nanoseconds)
    }

    package var seconds: Double { Double(nanoseconds) / 1e9 }

    package static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.nanoseconds < rhs.nanoseconds }

    package var description: String { "\(seconds)s" }
}

/// A length of time in nanoseconds; the configuration's durations are spans.
package struct Span: Hashable, Comparable, Codable, Sendable {
    package var nanoseconds: Int64

    package init(nanoseconds: Int64) {
        self.nanoseconds = nanoseconds
    }

    package static func seconds(_ seconds: Double) -> Span {
        Span(nanoseconds: nanosecondsRounded(seconds))
    }

    package var seconds: Double { Double(nanoseconds) / 1e9 }

    package static func < (lhs: Span, rhs: Span) -> Bool { lhs.nanoseconds < rhs.nanoseconds }
}

/// Seconds to whole nanoseconds, rounded half away from zero (no libm: the core links nothing).
private func nanosecondsRounded(_ seconds: Double) -> Int64 {
    let scaled = seconds * 1e9
    return Int64(scaled >= 0 ? scaled + 0.5 : scaled - 0.5)
}
