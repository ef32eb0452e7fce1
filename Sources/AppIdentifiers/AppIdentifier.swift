/// What an app id may be (SEMANTICS I15): 1 to 255 bytes of ASCII letters, digits, `.`, `_` and `-`, the first a
/// letter, a digit or `_`. Desktop file ids, Flatpak ids, snap names and plain names all fit; control characters,
/// bidi overrides, spaces and `/` do not.
package enum AppIdentifier {
    /// D-Bus's bound on a name, and so on a desktop file id that follows its rules.
    package static let maximumBytes = 255

    /// What to write instead, for an error message: the rule and an example.
    package static let rule =
        "an app id is 1 to \(maximumBytes) bytes of ASCII letters, digits, '.', '_' and '-', starting with a "
        + "letter, a digit or '_' (SEMANTICS I15): write the app's desktop file id without .desktop, such as "
        + "org.gnome.Maps"

    /// Whether `id` is an app id.
    package static func isValid(_ id: String) -> Bool {
        let bytes = id.utf8
        guard let first = bytes.first, bytes.count <= maximumBytes, isLetterOrDigit(first) || first == UInt8(ascii: "_")
        else { return false }
        return bytes.allSatisfy { byte in
            isLetterOrDigit(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_")
                || byte == UInt8(ascii: "-")
        }
    }

    private static func isLetterOrDigit(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default: false
        }
    }
}
