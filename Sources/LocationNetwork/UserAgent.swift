/// The `User-Agent` locd-network sends (SEMANTICS U19): the program, its version, the system and where the project
/// lives, so that a keyless service such as BeaconDB can tell its clients apart.
public enum UserAgent {
    /// locd-network's version, as `GetInfo` and `--version` give it.
    public static let version = "0.1.0"
    /// Where the project lives.
    public static let projectURL = "https://github.com/locd/locd"
    /// The longest `--user-agent` taken, in bytes.
    public static let maximumBytes = 200

    /// `locd-network/VERSION (OS; URL)`, the OS named from the text of an os-release file (`nil`: none was read).
    public static func make(osRelease: String?) -> String {
        "locd-network/\(version) (\(systemName(osRelease: osRelease)); \(projectURL))"
    }

    /// `PRETTY_NAME`, else `ID VERSION_ID`, else `ID`, else `Linux`; only printable ASCII is kept.
    static func systemName(osRelease: String?) -> String {
        var fields: [String: String] = [:]
        for line in (osRelease ?? "").split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].trimmingSpaces
            var value = line[line.index(after: equals)...].trimmingSpaces
            if value.count >= 2, let first = value.first, first == "\"" || first == "'", value.last == first {
                value = String(value.dropFirst().dropLast())
            }
            fields[key] = value.replacingBackslashEscapes
        }
        let candidates = [
            fields["PRETTY_NAME"],
            fields["ID"].map { id in fields["VERSION_ID"].map { "\(id) \($0)" } ?? id },
        ]
        for candidate in candidates.compactMap({ $0 }) {
            let printable = String(
                String.UnicodeScalarView(candidate.unicodeScalars.filter { (0x20..<0x7f).contains($0.value) })
            )
            .trimmingSpaces
            if !printable.isEmpty { return String(printable.prefix(100)) }
        }
        return "Linux"
    }

    /// Why `text` cannot be a `User-Agent`, or `nil` when it can: printable ASCII, not empty, at most
    /// ``maximumBytes`` bytes (a header value with a line break in it would be a header of its own).
    public static func check(_ text: String) -> String? {
        if text.isEmpty { return "is empty" }
        if text.utf8.count > maximumBytes { return "is longer than \(maximumBytes) bytes" }
        if !text.unicodeScalars.allSatisfy({ (0x20..<0x7f).contains($0.value) }) {
            return "holds a character that is not printable ASCII (a line break, a tab, or beyond ASCII)"
        }
        return nil
    }
}

extension StringProtocol {
    fileprivate var trimmingSpaces: String {
        String(drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed())
    }

    /// os-release's shell-style escapes (`\"`, `\\`, `\$`, `` \` ``) undone.
    fileprivate var replacingBackslashEscapes: String {
        var result = ""
        var escaped = false
        for character in self {
            if escaped || character != "\\" {
                result.append(character)
                escaped = false
            } else {
                escaped = true
            }
        }
        return result
    }
}
