import DesktopEntry
import DisplayText

/// How an app is shown to the person: its name and icon from its `.desktop` file (N2), or its id when it has none.
struct AppLook: Equatable, Sendable {
    var name: String
    /// The entry's `Icon`: an icon name of the theme or a path.
    var icon: String?
    /// The desktop file id for the notification's `desktop-entry` hint: the app id, when it is a plain file name.
    var desktopEntry: String?

    init(name: String, icon: String? = nil, desktopEntry: String? = nil) {
        self.name = name
        self.icon = icon
        self.desktopEntry = desktopEntry
    }

    /// The look of `appID` from `APPID.desktop` in the first of `directories` that has it. The name is shown escaped
    /// (I16): a `.desktop` file, or an id from a store older than I15, may hold a line break or a bidi override.
    init(appID: String, directories: [String]) {
        let entry = DesktopEntry.find(appID, in: directories)
        self.init(
            name: (entry?.value("Name") ?? appID).escapedForDisplay,
            icon: entry?.value("Icon"),
            desktopEntry: DesktopEntry.isFileName(appID) ? appID : nil
        )
    }

    /// The `applications` directories of the XDG base directories: `$XDG_DATA_HOME` (else `~/.local/share`) first,
    /// then each of `$XDG_DATA_DIRS` (else `/usr/local/share:/usr/share`); relative paths are ignored, as the
    /// specification says.
    static func applicationDirectories(environment: [String: String]) -> [String] {
        var homes: [String] = []
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            homes.append(data)
        } else if let home = environment["HOME"], home.hasPrefix("/") {
            homes.append(home + "/.local/share")
        }
        let shared = environment["XDG_DATA_DIRS"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/local/share:/usr/share"
        homes += shared.split(separator: ":").map(String.init).filter { $0.hasPrefix("/") }
        return homes.map { ($0.hasSuffix("/") ? String($0.dropLast()) : $0) + "/applications" }
    }
}
