/// The TOML 1.0 grammar of values that start with a digit or a sign: integers, floats, dates and times.
///
/// toml++ 3.4 picks the parser for such a value from a loose summary of its characters and then asserts what
/// that parser expects, so a malformed one (`1979-05-27T.7:32:00`) can trap instead of failing. Checking the
/// grammar first lets only well-formed values reach it; a value this refuses is invalid TOML anyway.
enum TOMLScalarGrammar {
    /// Whether `token` (ASCII, no surrounding space) is a TOML integer, float, date, time or date-time.
    static func accepts(_ token: [Unicode.Scalar]) -> Bool {
        guard token.count <= 100, token.allSatisfy(\.isASCII) else { return false }
        let bytes = token.map { UInt8(truncatingIfNeeded: $0.value) }
        return isInteger(bytes) || isFloat(bytes) || isDateOrTime(bytes)
    }

    /// `YYYY-MM-DD`: a local date, which may be followed by a space and a time.
    static func isLocalDate(_ token: [Unicode.Scalar]) -> Bool {
        let bytes = token.map { UInt8(truncatingIfNeeded: $0.value) }
        return token.allSatisfy(\.isASCII) && date(bytes, from: 0) == bytes.count
    }

    // MARK: Numbers

    private static func isInteger(_ s: [UInt8]) -> Bool {
        if s.count > 2 && s[0] == UInt8(ascii: "0") {
            switch s[1] {
            case UInt8(ascii: "x"): return digits(s, from: 2, isHexDigit) == s.count
            case UInt8(ascii: "o"): return digits(s, from: 2) { (0x30...0x37).contains($0) } == s.count
            case UInt8(ascii: "b"): return digits(s, from: 2) { $0 == 0x30 || $0 == 0x31 } == s.count
            default: break
            }
        }
        return decimalInteger(s, from: sign(s)) == s.count
    }

    private static func isFloat(_ s: [UInt8]) -> Bool {
        let start = sign(s)
        let rest = Array(s[start...])
        if rest == Array("inf".utf8) || rest == Array("nan".utf8) { return true }
        guard var index = decimalInteger(s, from: start) else { return false }
        var fractionOrExponent = false
        if index < s.count && s[index] == UInt8(ascii: ".") {
            guard let end = digits(s, from: index + 1, isDigit) else { return false }
            index = end
            fractionOrExponent = true
        }
        if index < s.count && (s[index] == UInt8(ascii: "e") || s[index] == UInt8(ascii: "E")) {
            guard let end = digits(s, from: index + 1 + sign(s, at: index + 1), isDigit) else { return false }
            index = end
            fractionOrExponent = true
        }
        return fractionOrExponent && index == s.count
    }

    /// An unsigned decimal without leading zeros, from `start`; returns where it ends.
    private static func decimalInteger(_ s: [UInt8], from start: Int) -> Int? {
        guard start < s.count else { return nil }
        if s[start] == UInt8(ascii: "0") { return start + 1 }
        return digits(s, from: start, isDigit)
    }

    /// One or more digits with single underscores between them, from `start`; returns where they end.
    private static func digits(_ s: [UInt8], from start: Int, _ isDigit: (UInt8) -> Bool) -> Int? {
        var index = start
        guard index < s.count, isDigit(s[index]) else { return nil }
        index += 1
        while index < s.count {
            if isDigit(s[index]) {
                index += 1
            } else if s[index] == UInt8(ascii: "_") && index + 1 < s.count && isDigit(s[index + 1]) {
                index += 2
            } else {
                break
            }
        }
        return index
    }

    private static func sign(_ s: [UInt8], at index: Int = 0) -> Int {
        index < s.count && (s[index] == UInt8(ascii: "+") || s[index] == UInt8(ascii: "-")) ? 1 : 0
    }

    // MARK: Dates and times

    private static func isDateOrTime(_ s: [UInt8]) -> Bool {
        if let end = time(s, from: 0) { return end == s.count }
        guard let dateEnd = date(s, from: 0) else { return false }
        if dateEnd == s.count { return true }
        guard [UInt8(ascii: "T"), UInt8(ascii: "t"), UInt8(ascii: " ")].contains(s[dateEnd]),
            let timeEnd = time(s, from: dateEnd + 1)
        else { return false }
        if timeEnd == s.count { return true }
        if s[timeEnd] == UInt8(ascii: "Z") || s[timeEnd] == UInt8(ascii: "z") { return timeEnd + 1 == s.count }
        guard sign(s, at: timeEnd) == 1, let end = fixed(s, from: timeEnd + 1, "dd:dd") else { return false }
        return end == s.count
    }

    /// `YYYY-MM-DD` from `start`; returns where it ends.
    private static func date(_ s: [UInt8], from start: Int) -> Int? {
        fixed(s, from: start, "dddd-dd-dd")
    }

    /// `HH:MM:SS` with an optional fraction, from `start`; returns where it ends.
    private static func time(_ s: [UInt8], from start: Int) -> Int? {
        guard let end = fixed(s, from: start, "dd:dd:dd") else { return nil }
        guard end < s.count && s[end] == UInt8(ascii: ".") else { return end }
        var index = end + 1
        guard index < s.count, isDigit(s[index]) else { return nil }
        while index < s.count && isDigit(s[index]) { index += 1 }
        return index
    }

    /// Matches `pattern`, where `d` is any digit and other characters stand for themselves.
    private static func fixed(_ s: [UInt8], from start: Int, _ pattern: String) -> Int? {
        var index = start
        for expected in pattern.utf8 {
            guard index < s.count else { return nil }
            if expected == UInt8(ascii: "d") ? !isDigit(s[index]) : s[index] != expected { return nil }
            index += 1
        }
        return index
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte)
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        isDigit(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
    }
}
