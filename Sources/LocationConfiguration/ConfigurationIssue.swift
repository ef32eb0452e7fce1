/// One problem found in a configuration or manifest file, located by file, line and key (SEMANTICS M1, §11).
///
/// The same shape serves errors and warnings; its ``description`` is the one log line that tells the person
/// which file to open and what to write there, e.g.
/// `apps.d/com.ex.toml:3: key NSLocationWhenInUseUsageDescription: expected a string, found integer`.
/// (It is not called a "diagnostic" because SEMANTICS §7 uses that word for session flags.)
package struct ConfigurationIssue: Error, Hashable, Sendable, CustomStringConvertible {
    /// The file as it was named when read.
    package var file: String
    /// The 1-based line, or `nil` when the problem is the whole file (unreadable, missing key).
    package var line: Int?
    /// The dotted key path as written in TOML (`lifecycle.background-grace`), or `nil` when no key applies.
    package var key: String?
    /// What is wrong and what is allowed.
    package var message: String

    package init(file: String, line: Int?, key: String?, message: String) {
        self.file = file
        self.line = line
        self.key = key
        self.message = message
    }

    package var description: String {
        var text = file
        if let line { text += ":\(line)" }
        text += ": "
        if let key { text += "key \(key): " }
        return text + message
    }
}
