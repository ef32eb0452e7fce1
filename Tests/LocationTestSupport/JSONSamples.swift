/// JSON texts the framing and limit tests share: strings that exercise every escape, and objects too wide to
/// parse in quadratic time.
package enum JSONSamples {
    /// Strings mixing plain ASCII, every character JSON escapes, other controls and non-ASCII scalars.
    package static func string(_ random: inout SplitMix64) -> String {
        let pieces = [
            "a", "Z", "0", " ", "\"", "\\", "\n", "\r", "\t", "\u{08}", "\u{0C}", "\u{01}", "\u{1F}", "é", "漢",
            "🛰️", "\u{301}", "/", "io.locd.App",
        ]
        return (0..<Int.random(in: 0..<8, using: &random)).map { _ in
            pieces[Int.random(in: 0..<pieces.count, using: &random)]
        }.joined()
    }

    /// `{"k0":0,"k1":0,…}` with `count` distinct keys, then `extra` appended verbatim before the brace.
    package static func wideObject(keys count: Int, extra: String = "") -> [UInt8] {
        var text = "{"
        text.reserveCapacity(count * 10)
        for index in 0..<count {
            if index > 0 { text += "," }
            text += "\"\(String(index, radix: 36))\":0"
        }
        return Array((text + extra + "}").utf8)
    }
}
