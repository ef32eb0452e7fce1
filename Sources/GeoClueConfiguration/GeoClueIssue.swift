/// A problem in a configuration file, located by file, line and key: in GeoClue's configuration, or a key of it that
/// cannot be carried (SEMANTICS G30, G33), and in locd's own files, which name it `ConfigurationIssue` (M1):
/// `/etc/geoclue/geoclue.conf:12: key wifi.enable: expected true or false, found "yes"`.
package struct GeoClueIssue: Error, Hashable, Sendable, CustomStringConvertible {
    /// The file as it was named when read.
    package var file: String
    /// The 1-based line, or `nil` when the problem is the whole file.
    package var line: Int?
    /// `section.key` (a dotted TOML key path such as `lifecycle.background-grace` in locd's files), or `section` for
    /// a whole section, or `nil` when no key applies.
    package var key: String?
    /// What is wrong, or why the key is not carried.
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
