/// An app id derived from what the kernel and the system keep about a process, and where it came from.
public struct AppID: Hashable, Sendable {
    /// Where the id was read, in the order ``AppIDReader`` tries them.
    public enum Source: String, Hashable, Sendable {
        /// `[Application] name=` of `/.flatpak-info` in the process's root: a Flatpak app id such as
        /// `org.gnome.Maps`.
        case flatpak
        /// The snap's instance name (`firefox`, `firefox_beta`) from the process's AppArmor label.
        case snap
        /// The application id in the name of the systemd user unit the process runs in (`org.gnome.Maps` of
        /// `app-gnome-org.gnome.Maps-4312.scope`), unescaped.
        case systemdUnit = "systemd-unit"
    }

    public var id: String
    public var source: Source

    public init(id: String, source: Source) {
        self.id = id
        self.source = source
    }
}
