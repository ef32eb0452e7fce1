import JSON

extension GnomeShellSource {
    /// The extension's picture, read from its JSON; `nil` when it is not one.
    ///
    /// A window's name for its app is the first it has of its sandbox's app id (Flatpak, snap: the compositor reads it
    /// from the sandbox, not from the app), its GTK application id, the desktop id GNOME Shell matched it to (without
    /// `.desktop`), and its `WM_CLASS`. Its process is the shell's: the credentials of the Wayland client's socket, or
    /// X-Resource's for an X client (L16).
    static func picture(_ text: String) -> DesktopPicture? {
        guard text.utf8.count <= maximumPictureBytes,
            case .success(let value) = JSONValue.parse(
                Array(text.utf8),
                limits: JSONLimits(maximumDepth: 4, maximumKeys: 16, maximumValues: 16_384)
            ),
            let locked = value["locked"]?.boolValue, let windows = value["windows"]?.arrayValue
        else { return nil }
        return DesktopPicture(
            locked: locked,
            windows: windows.map { window in
                let desktopId = window["desktopId"]?.stringValue.map { id in
                    id.hasSuffix(".desktop") ? String(id.dropLast(".desktop".count)) : id
                }
                let names = [
                    window["sandboxedAppId"]?.stringValue, window["gtkApplicationId"]?.stringValue, desktopId,
                    window["wmClass"]?.stringValue,
                ]
                let pid = window["pid"]?.intValue.flatMap { Int32(exactly: $0) }
                return DesktopWindow(
                    appID: names.compactMap { $0 }.first { !$0.isEmpty },
                    pid: pid.flatMap { $0 > 0 ? $0 : nil },
                    focused: window["focused"]?.boolValue ?? false,
                    minimized: window["minimized"]?.boolValue ?? false
                )
            }
        )
    }
}
