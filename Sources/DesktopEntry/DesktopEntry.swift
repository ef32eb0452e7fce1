import Foundation

/// The `[Desktop Entry]` group of an app's `.desktop` file, found by the app's id in `applications` directories and
/// read within bounds.
///
/// An app id comes from a peer (a process's desktop, a prompt of locd), never a path: only an id that is one plain
/// file name is looked up, only the first ``maximumFileBytes`` of the file are read, and a value is given only when it
/// is one short line of printable text, so that nothing a file holds can dress up what locd or its agent shows.
package struct DesktopEntry: Sendable {
    /// The most bytes of a value given.
    package static let maximumValueBytes = 1024
    /// The most bytes read of a `.desktop` file.
    package static let maximumFileBytes = 65_536

    /// The text read of the file.
    package let text: String

    package init(text: String) {
        self.text = text
    }

    /// The entry of `appID` (with or without `.desktop`) in the first of `directories` that has one; `nil` when the
    /// id is no plain file name, no directory has it, or it cannot be read.
    package static func find(_ appID: String, in directories: [String]) -> DesktopEntry? {
        guard isFileName(appID) else { return nil }
        let name = appID.hasSuffix(".desktop") ? appID : appID + ".desktop"
        for directory in directories {
            guard let handle = FileHandle(forReadingAtPath: directory + "/" + name) else { continue }
            defer { try? handle.close() }
            guard let data = try? handle.read(upToCount: maximumFileBytes) else { return nil }
            return DesktopEntry(text: String(decoding: data, as: UTF8.self))
        }
        return nil
    }

    /// The unlocalised `key` of `[Desktop Entry]`, when it is a non-empty line of text within
    /// ``maximumValueBytes``.
    package func value(_ key: String) -> String? {
        var inEntry = false
        for line in text.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            if line.hasPrefix("[") {
                inEntry = line == "[Desktop Entry]"
                continue
            }
            guard inEntry, let equals = line.firstIndex(of: "=") else { continue }
            guard line[..<equals].trimmingCharacters(in: .whitespaces) == key else { continue }
            let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            let printable = !value.unicodeScalars.contains { $0.properties.generalCategory == .control }
            guard !value.isEmpty, printable, value.utf8.count <= Self.maximumValueBytes else { return nil }
            return value
        }
        return nil
    }

    /// A desktop file id that is one file name: letters, digits, `.`, `-` and `_`, not starting with `.`.
    package static func isFileName(_ id: String) -> Bool {
        guard !id.isEmpty, id.utf8.count <= 255, !id.hasPrefix(".") else { return false }
        return id.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || "._-".unicodeScalars.contains(scalar))
        }
    }
}
