import Foundation

/// The app's own words for locd's prompt when locd has no manifest for it (SEMANTICS I11): `Comment`, else `Name`,
/// of the `[Desktop Entry]` group of the app's `.desktop` file, from the directories the system installs them in.
///
/// Those files are the system's and Flatpak's, not the caller's: a peer names the app id, never a path. What cannot
/// be read, or is no single line of text, gives no description, and locd shows its own stand-in.
struct DesktopDescription: Sendable {
    /// The `applications` directories searched, first match wins.
    var directories = [
        "/usr/local/share/applications", "/usr/share/applications", "/var/lib/flatpak/exports/share/applications",
    ]
    /// The most bytes of a description locd accepts in `Hello`.
    static let maximumBytes = 1024
    /// The most bytes read of a `.desktop` file.
    static let maximumFileBytes = 65_536

    /// The description of `appID`, or `nil`.
    func description(of appID: String) -> String? {
        guard Self.isFileName(appID) else { return nil }
        let name = appID.hasSuffix(".desktop") ? appID : appID + ".desktop"
        for directory in directories {
            guard let handle = FileHandle(forReadingAtPath: directory + "/" + name) else { continue }
            defer { try? handle.close() }
            guard let data = try? handle.read(upToCount: Self.maximumFileBytes) else { return nil }
            let text = String(decoding: data, as: UTF8.self)
            return Self.value(in: text, key: "Comment") ?? Self.value(in: text, key: "Name")
        }
        return nil
    }

    /// A desktop file id that is one file name: letters, digits, `.`, `-` and `_`, not starting with `.`.
    static func isFileName(_ id: String) -> Bool {
        guard !id.isEmpty, id.utf8.count <= 255, !id.hasPrefix(".") else { return false }
        return id.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || "._-".unicodeScalars.contains(scalar))
        }
    }

    /// The unlocalised `key` of `[Desktop Entry]`, when it is a non-empty line of text within ``maximumBytes``.
    static func value(in text: String, key: String) -> String? {
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
            guard !value.isEmpty, printable, value.utf8.count <= maximumBytes else { return nil }
            return value
        }
        return nil
    }
}
