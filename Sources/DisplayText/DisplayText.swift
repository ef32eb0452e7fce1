/// Text that came from an app or a user, made safe to print (SEMANTICS I16): the control characters (U+0000–U+001F, DEL, U+0080–U+009F) and
/// the Unicode bidi controls are shown as `\u{HEX}` instead of being sent to a terminal, a notification or the
/// journal, which would obey them. Everything else, including any other non-ASCII text, is kept as it is.
extension String {
    /// This text with every control and bidi character escaped visibly (`\u{1b}` for ESC, `\u{202e}` for RLO).
    package var escapedForDisplay: String {
        guard unicodeScalars.contains(where: DisplayText.mustEscape) else { return self }
        var escaped = ""
        escaped.reserveCapacity(utf8.count + 16)
        for scalar in unicodeScalars {
            if DisplayText.mustEscape(scalar) {
                escaped += "\\u{" + String(scalar.value, radix: 16) + "}"
            } else {
                escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    /// ``escapedForDisplay`` line by line: each line break (`\n`) stays one, for text whose lines are its own
    /// (a log entry, an error of several lines), and every other control or bidi character is escaped.
    package var escapedKeepingLineBreaks: String {
        split(separator: "\n", omittingEmptySubsequences: false).map { String($0).escapedForDisplay }
            .joined(separator: "\n")
    }
}

/// What ``Swift/String/escapedForDisplay`` escapes.
package enum DisplayText {
    /// Whether `scalar` would act rather than show: a control character (U+0000–U+001F, DEL, U+0080–U+009F) or a bidi control (U+061C ARABIC
    /// LETTER MARK, U+200E/U+200F, the embeddings and overrides U+202A–U+202E, the isolates U+2066–U+2069).
    package static func mustEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}
