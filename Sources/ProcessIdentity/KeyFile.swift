/// The one thing read from a desktop key file (`.flatpak-info`): the value of a key in a group.
enum KeyFile {
    /// The value of `key` in `[group]`; the first one if the file repeats it. Comments and blank lines are
    /// skipped; a line that is neither a group, a comment nor `key=value` makes the file unreadable.
    static func value(in text: String, group wanted: String, key wantedKey: String) -> String? {
        var group: Substring?
        var found: String?
        // "\r\n" is one Character in Swift: a line ends at either.
        for line in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("[") {
                guard line.hasSuffix("]"), line.count > 2 else { return nil }
                group = line.dropFirst().dropLast()
                continue
            }
            guard let equals = line.firstIndex(of: "=") else { return nil }
            guard group == Substring(wanted), found == nil else { continue }
            let key = line[..<equals].trimmingSuffix(" ")
            if key == wantedKey { found = String(line[line.index(after: equals)...].drop { $0 == " " }) }
        }
        return found
    }
}

extension Substring {
    fileprivate func trimmingSuffix(_ character: Character) -> Substring {
        var text = self
        while text.last == character { text = text.dropLast() }
        return text
    }
}
