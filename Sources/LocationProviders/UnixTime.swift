#if canImport(Glibc)
import Glibc
#endif

/// Unix time in seconds: the wall clock that stamps fixes, and the calendar arithmetic that turns the
/// UTC times of NMEA sentences and gpsd reports into it.
package enum UnixTime {
    /// The wall clock now.
    @Sendable package static func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }

    /// Seconds since 1970-01-01T00:00:00Z of a proleptic Gregorian UTC date and time.
    ///
    /// Howard Hinnant's `days_from_civil`, so no calendar library (and no time zone) is involved.
    package static func seconds(year: Int, month: Int, day: Int, secondsOfDay: Double) -> Double {
        let shifted = month <= 2 ? year - 1 : year
        let era = (shifted >= 0 ? shifted : shifted - 399) / 400
        let yearOfEra = shifted - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return Double(days) * 86_400 + secondsOfDay
    }

    /// Parses gpsd's ISO 8601 UTC time, `2026-11-22T12:00:17.000Z`; `nil` for anything else.
    package static func parseISO8601(_ text: String) -> Double? {
        let bytes = Array(text.utf8)
        // yyyy-mm-ddThh:mm:ss, then optional fraction, then Z.
        guard bytes.count >= 20, bytes.last == UInt8(ascii: "Z"), bytes[4] == UInt8(ascii: "-"),
            bytes[7] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: "T"), bytes[13] == UInt8(ascii: ":"),
            bytes[16] == UInt8(ascii: ":")
        else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for byte in bytes[range] {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var fraction = 0.0
        let tail = bytes[19..<(bytes.count - 1)]
        if !tail.isEmpty {
            // At most nine digits, counted before they are read: more would overflow the number.
            guard tail.first == UInt8(ascii: "."), tail.count > 1, tail.count <= 10,
                let digits = number(20..<(bytes.count - 1))
            else { return nil }
            fraction = Double(digits) / pow(10, Double(tail.count - 1))
        }
        let secondsOfDay = Double(hour * 3600 + minute * 60 + second) + fraction
        return seconds(year: year, month: month, day: day, secondsOfDay: secondsOfDay)
    }
}
