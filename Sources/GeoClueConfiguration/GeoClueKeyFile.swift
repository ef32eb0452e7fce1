import Foundation

/// GeoClue's configuration files as GLib's key file syntax has them (SEMANTICS G30): `geoclue.conf`, then the
/// `conf.d/*.conf` beside it in name order, a later file's key replacing an earlier one's. Each value keeps the
/// file and line it was written on, so that every message can name them. Pure but for ``load(main:)``.
package struct GeoClueKeyFile: Hashable, Sendable {
    /// One `key=value`, where it was written.
    package struct Entry: Hashable, Sendable {
        /// The value with GLib's escapes (`\s`, `\n`, `\t`, `\r`, `\\`) resolved.
        package var value: String
        package var file: String
        package var line: Int
    }

    /// One `[section]`: its keys in the order first written.
    package struct Section: Hashable, Sendable {
        package var name: String
        /// Where the section was first opened.
        package var file: String
        package var line: Int
        package var keys: [String] = []
        package var entries: [String: Entry] = [:]
    }

    /// Bounds (G30): GeoClue's configuration is a few dozen lines.
    package static let maximumFileBytes = 65_536
    package static let maximumDropIns = 64
    package static let maximumSections = 256
    package static let maximumKeysPerSection = 256

    /// The sections in the order first opened.
    package private(set) var sections: [Section] = []
    private var index: [String: Int] = [:]

    package init() {}

    /// The section named `name`, if any file opened it.
    package func section(_ name: String) -> Section? { index[name].map { sections[$0] } }

    /// The entry of `key` in `section`, if written.
    package func entry(_ section: String, _ key: String) -> Entry? { self.section(section)?.entries[key] }

    // MARK: Reading

    /// Reads `main` and the `conf.d/*.conf` of its directory (hidden files left out) in name order.
    /// - Returns: `nil` when `main` does not exist: nothing is imported (G30).
    /// - Throws: a file that cannot be read, is past a bound, or has a line that is no key file line.
    package static func load(main: String) throws(GeoClueIssue) -> GeoClueKeyFile? {
        guard FileManager.default.fileExists(atPath: main) else { return nil }
        var keyFile = GeoClueKeyFile()
        try keyFile.parse(text: read(main), file: main)
        let directory = (main as NSString).deletingLastPathComponent + "/conf.d"
        for file in try dropIns(in: directory) {
            try keyFile.parse(text: read(file), file: file)
        }
        return keyFile
    }

    /// The `*.conf` files of `directory` by name; none when it does not exist.
    static func dropIns(in directory: String) throws(GeoClueIssue) -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) else { return [] }
        guard isDirectory.boolValue, let names = try? FileManager.default.contentsOfDirectory(atPath: directory)
        else {
            throw GeoClueIssue(file: directory, line: nil, key: nil, message: "cannot list this directory")
        }
        let files = names.filter { $0.hasSuffix(".conf") && !$0.hasPrefix(".") }.sorted()
        guard files.count <= maximumDropIns else {
            let message = "more than \(maximumDropIns) drop-ins; GeoClue's configuration is a few files"
            throw GeoClueIssue(file: directory, line: nil, key: nil, message: message)
        }
        return files.map { directory + "/" + $0 }
    }

    /// The text of `file`, at most ``maximumFileBytes``.
    package static func read(_ file: String) throws(GeoClueIssue) -> String {
        guard let data = FileManager.default.contents(atPath: file) else {
            throw GeoClueIssue(file: file, line: nil, key: nil, message: "cannot read this file")
        }
        guard data.count <= maximumFileBytes else {
            let message = "larger than \(maximumFileBytes) bytes; GeoClue's configuration is a few dozen lines"
            throw GeoClueIssue(file: file, line: nil, key: nil, message: message)
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw GeoClueIssue(file: file, line: nil, key: nil, message: "not UTF-8 text")
        }
        return text
    }

    /// Adds one file's sections and keys over what earlier files set, as GLib reads a key file: `[section]`,
    /// `key=value`, `#` comments and blank lines; anything else is an error naming the line.
    package mutating func parse(text: String, file: String) throws(GeoClueIssue) {
        var current: Int?
        var number = 0
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            number += 1
            let line = raw.drop { $0 == " " || $0 == "\t" }.trimmingTrailingWhitespace()
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("[") {
                guard line.hasSuffix("]"), line.count > 2 else {
                    throw GeoClueIssue(
                        file: file,
                        line: number,
                        key: nil,
                        message: "expected a section name in brackets, such as [wifi]"
                    )
                }
                let name = String(line.dropFirst().dropLast())
                guard !name.contains("[") && !name.contains("]") else {
                    throw GeoClueIssue(file: file, line: number, key: nil, message: "a section name has no brackets")
                }
                current = try open(name, file: file, line: number)
                continue
            }
            guard let equals = line.firstIndex(of: "=") else {
                let message = "expected key=value, a [section], a # comment or a blank line"
                throw GeoClueIssue(file: file, line: number, key: nil, message: message)
            }
            let key = String(line[..<equals]).trimmingTrailingWhitespace()
            guard !key.isEmpty else {
                throw GeoClueIssue(file: file, line: number, key: nil, message: "a key name is missing before =")
            }
            guard let section = current else {
                throw GeoClueIssue(
                    file: file,
                    line: number,
                    key: key,
                    message: "a key before any [section]: GeoClue's keys belong to a section"
                )
            }
            let value = try Self.unescape(
                String(line[line.index(after: equals)...].drop { $0 == " " || $0 == "\t" }),
                file: file,
                line: number,
                key: sections[section].name + "." + key
            )
            if sections[section].entries[key] == nil {
                guard sections[section].keys.count < Self.maximumKeysPerSection else {
                    let message = "more than \(Self.maximumKeysPerSection) keys in [\(sections[section].name)]"
                    throw GeoClueIssue(file: file, line: number, key: nil, message: message)
                }
                sections[section].keys.append(key)
            }
            sections[section].entries[key] = Entry(value: value, file: file, line: number)
        }
    }

    private mutating func open(_ name: String, file: String, line: Int) throws(GeoClueIssue) -> Int {
        if let existing = index[name] { return existing }
        guard sections.count < Self.maximumSections else {
            let message = "more than \(Self.maximumSections) sections; GeoClue's configuration has a few dozen"
            throw GeoClueIssue(file: file, line: line, key: nil, message: message)
        }
        sections.append(Section(name: name, file: file, line: line))
        index[name] = sections.count - 1
        return sections.count - 1
    }

    /// GLib's escapes in a value: `\s` space, `\n`, `\t`, `\r`, `\\`; `\;` is kept for the list splitter.
    private static func unescape(_ text: String, file: String, line: Int, key: String) throws(GeoClueIssue) -> String {
        guard text.contains("\\") else { return text }
        var result = ""
        var escaping = false
        for character in text {
            if escaping {
                switch character {
                case "s": result.append(" ")
                case "n": result.append("\n")
                case "t": result.append("\t")
                case "r": result.append("\r")
                case "\\": result.append("\\")
                case ";": result.append("\\;")
                default:
                    let message = "unknown escape \\\(character): GLib's key files know \\s \\n \\t \\r \\\\ \\;"
                    throw GeoClueIssue(file: file, line: line, key: key, message: message)
                }
                escaping = false
            } else if character == "\\" {
                escaping = true
            } else {
                result.append(character)
            }
        }
        guard !escaping else {
            throw GeoClueIssue(file: file, line: line, key: key, message: "a value ends with a lone backslash")
        }
        return result
    }
}

extension GeoClueKeyFile.Entry {
    /// The value as GLib's boolean: `true`/`false`, or `1`/`0`.
    package func bool(section: String, key: String) throws(GeoClueIssue) -> Bool {
        switch value {
        case "true", "1": return true
        case "false", "0": return false
        default:
            throw GeoClueIssue(
                file: file,
                line: line,
                key: section + "." + key,
                message: "expected true or false, found \"\(value)\""
            )
        }
    }

    /// The value as GLib's list: `;`-separated, a trailing `;` allowed, empty items dropped.
    package var list: [String] {
        var items: [String] = []
        var item = ""
        var escaping = false
        for character in value {
            if escaping {
                item.append(character == ";" ? ";" : "\\")
                if character != ";" { item.append(character) }
                escaping = false
            } else if character == "\\" {
                escaping = true
            } else if character == ";" {
                items.append(item)
                item = ""
            } else {
                item.append(character)
            }
        }
        items.append(item)
        return items.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}

extension StringProtocol {
    fileprivate func trimmingTrailingWhitespace() -> String {
        var text = Substring(self)
        while let last = text.last, last == " " || last == "\t" || last == "\r" { text = text.dropLast() }
        return String(text)
    }
}
