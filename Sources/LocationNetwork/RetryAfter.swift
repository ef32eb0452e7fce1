import Foundation

/// HTTP's `Retry-After` (RFC 9110 §10.2.3), read as the service means it (SEMANTICS U21).
public enum RetryAfter {
    /// The longest wait taken: a day. A service asking for more is taken to ask for a day.
    public static let maximum = 86_400.0

    /// The seconds from `now` that `value` asks to wait: a number of seconds, or an HTTP date (IMF-fixdate, or the
    /// obsolete RFC 850 and asctime forms); at least 0 and at most ``maximum``; `nil` for anything else.
    public static func delay(_ value: String, now: Date) -> Double? {
        let text = value.trimmingCharacters(in: .whitespaces)
        if !text.isEmpty, text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) {
            return min(Double(text) ?? maximum, maximum)
        }
        for format in ["EEE, dd MMM yyyy HH:mm:ss 'GMT'", "EEEE, dd-MMM-yy HH:mm:ss 'GMT'", "EEE MMM d HH:mm:ss yyyy"] {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = format
            if let date = formatter.date(from: text) {
                return min(max(0, date.timeIntervalSince(now)), maximum)
            }
        }
        return nil
    }

    /// Seconds from `now` to the start of the next UTC day, when ichnaea's daily limits start again.
    public static func untilNextUTCDay(from now: Date) -> Double {
        let seconds = now.timeIntervalSince1970
        let day = 86_400.0
        return (seconds / day).rounded(.down) * day + day - seconds
    }
}
