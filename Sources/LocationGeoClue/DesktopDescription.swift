import DesktopEntry

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
    static let maximumBytes = DesktopEntry.maximumValueBytes

    /// The description of `appID`, or `nil`.
    func description(of appID: String) -> String? {
        guard let entry = DesktopEntry.find(appID, in: directories) else { return nil }
        return entry.value("Comment") ?? entry.value("Name")
    }
}
