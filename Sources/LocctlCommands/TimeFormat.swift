import Foundation

/// Durations and instants as locctl prints them.
///
/// The daemon sends seconds (remaining, uptime) and Unix times (event timestamps, prompts, fixes);
/// people read "in 4.2 s" and a wall-clock time faster than raw numbers.
enum TimeFormat {
    /// How long until something happens: "in 4.2 s", "in 3 min 20 s", "in 2 h 5 min".
    static func remaining(_ seconds: Double) -> String {
        "in " + span(seconds)
    }

    /// How long ago something happened: "4.2 s ago".
    static func ago(_ seconds: Double) -> String {
        span(seconds) + " ago"
    }

    /// A span of time with one decimal below a minute, whole units above.
    static func span(_ seconds: Double) -> String {
        let value = max(0, seconds.isFinite ? seconds : 0)
        if value < 59.95 { return String(format: "%.1f s", value) }
        let total = Int(value.rounded())
        if total < 3600 { return "\(total / 60) min \(total % 60) s" }
        return "\(total / 3600) h \(total % 3600 / 60) min"
    }

    /// The daemon's uptime, in the `systemctl status` manner: "0s", "3min 2s", "1h 5min".
    static func uptime(_ seconds: Double) -> String {
        let total = Int(max(0, seconds.isFinite ? seconds : 0))
        if total < 60 { return "\(total)s" }
        if total < 3600 { return "\(total / 60)min \(total % 60)s" }
        return "\(total / 3600)h \(total % 3600 / 60)min"
    }

    /// A Unix time as the wall clock in `timeZone`, to the millisecond: "14:03:07.250".
    static func clock(_ unixTime: Double, in timeZone: TimeZone = .current) -> String {
        guard unixTime.isFinite, abs(unixTime) < 1e12 else { return "?" }
        let milliseconds = Int64((unixTime * 1000).rounded(.down))
        let seconds = Int64((Double(milliseconds) / 1000).rounded(.down))
        let date = Date(timeIntervalSince1970: Double(seconds))
        let local = seconds + Int64(timeZone.secondsFromGMT(for: date))
        let day = ((local % 86400) + 86400) % 86400
        let millis = ((milliseconds % 1000) + 1000) % 1000
        return String(
            format: "%02ld:%02ld:%02ld.%03ld",
            Int(day / 3600),
            Int(day % 3600 / 60),
            Int(day % 60),
            Int(millis)
        )
    }
}
