/// Derives the app id of a process the way a desktop names it, for a program that speaks for other processes
/// (a D-Bus service in front of a daemon): in this order, the Flatpak id, the snap name, the application id of
/// the systemd user unit the process runs in, else nothing (the caller then falls back on what the client
/// says of itself).
///
/// Each source is only as strong as what stands behind it:
/// - Flatpak: `/proc/PID/root/.flatpak-info` is written by Flatpak into the sandbox, which the app cannot
///   change; this is what xdg-desktop-portal reads. A process that can build a mount namespace of its own
///   (bubblewrap, unprivileged user namespaces) can show any file there, as it can to the portal.
/// - Snap: the AppArmor label `snap.NAME.APP` (from `/proc/PID/attr/apparmor/current`, else
///   `/proc/PID/attr/current`). A confined process cannot change its label, whereas the cgroup scope
///   `snap.NAME.APP-UUID.scope` is a name any process of the user can ask systemd for, and `SNAP_NAME` is the
///   process's own environment. Without AppArmor a snap is not confined and is not named here.
/// - systemd unit: the name of the unit's cgroup, set by whoever started it: the desktop's launcher, or any
///   process of the same user asking its systemd for a unit of that name. It tells apps apart, not users.
///
/// Reading another user's `/proc/PID/root` needs the right to trace that process (`CAP_SYS_PTRACE`); without
/// it the Flatpak id is not found and the next source is tried.
public struct AppIDReader: Sendable {
    /// Where `/proc` is; tests point it at a tree of their own.
    public var procRoot: String

    public init(procRoot: String = "/proc") {
        self.procRoot = procRoot
    }

    /// The app id of `pid`, from the first source that names one; `nil` when none does.
    public func appID(of pid: Int32) -> AppID? {
        guard pid > 0 else { return nil }
        if let id = flatpakID(of: pid) { return AppID(id: id, source: .flatpak) }
        if let id = snapName(of: pid) { return AppID(id: id, source: .snap) }
        if let id = unitAppID(of: pid) { return AppID(id: id, source: .systemdUnit) }
        return nil
    }

    /// `[Application] name=` of `/proc/PID/root/.flatpak-info`, read without following a link at the file.
    public func flatpakID(of pid: Int32) -> String? {
        guard let text = ProcFiles.text(directory: "\(procRoot)/\(pid)/root", name: ".flatpak-info", limit: 65_536)
        else { return nil }
        return KeyFile.value(in: text, group: "Application", key: "name").flatMap(AppIDGrammar.flatpakID)
    }

    /// The snap instance name in the process's AppArmor label (`snap.NAME.APP`, `snap.NAME.hook.HOOK`).
    public func snapName(of pid: Int32) -> String? {
        let label =
            ProcFiles.text("\(procRoot)/\(pid)/attr/apparmor/current", limit: 4096)
            ?? ProcFiles.text("\(procRoot)/\(pid)/attr/current", limit: 4096)
        return label.flatMap(AppIDGrammar.snapName(fromLabel:))
    }

    /// The application id of the systemd unit of the process's cgroup (the unified hierarchy's, else the
    /// `name=systemd` one of a hybrid system).
    public func unitAppID(of pid: Int32) -> String? {
        guard let text = ProcFiles.text("\(procRoot)/\(pid)/cgroup", limit: 65_536) else { return nil }
        let lines = text.split(separator: "\n")
        let path =
            lines.first { $0.hasPrefix("0::") }.map { $0.dropFirst(3) }
            ?? lines.first { $0.contains(":name=systemd:") }.flatMap { line in
                line.firstRange(of: ":name=systemd:").map { line[$0.upperBound...] }
            }
        guard let path else { return nil }
        // The deepest unit of the path: a unit that starts its own sub-units (a delegated service) is not the
        // app of the processes inside them.
        for component in path.split(separator: "/").reversed()
        where component.hasSuffix(".scope") || component.hasSuffix(".service") {
            return AppIDGrammar.appID(fromUnit: String(component))
        }
        return nil
    }
}
