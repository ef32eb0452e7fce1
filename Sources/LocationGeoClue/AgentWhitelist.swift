import GeoClueConfiguration

#if canImport(Glibc)
import Glibc
#endif

/// GeoClue's `[agent] whitelist` (SEMANTICS G34): the desktop ids that may register as GeoClue agents, and the
/// programs each must be running to be taken as that agent.
package struct AgentWhitelist: Hashable, Sendable {
    /// The ids written.
    package var ids: Set<String>
    /// Where it was written, for the refusal's message.
    package var file: String
    /// The programs each id's agent runs, as written: ``desktopAgents``, each id's list replaced by the
    /// `--agent-executable` options that name it.
    package var executables: [String: [String]]
    /// ``executables`` resolved with realpath(3) at start, as `/proc/PID/exe` shows a program; a path that does not
    /// exist (the component is not installed) is left out, and matches nothing.
    package var resolvedExecutables: [String: Set<String>]

    /// The GeoClue agents of the desktops Debian ships, with the program each package installs: GNOME Shell
    /// (`gnome-shell`), GeoClue's demo agent (`geoclue-2.0`) and Phosh (`phosh`). `lipstick` (Sailfish OS) and
    /// `io.elementary.desktop.agent-geoclue2` (elementary OS) are in no Debian release: their distributions name
    /// their programs with `--agent-executable`.
    package static let desktopAgents: [String: [String]] = [
        "gnome-shell": ["/usr/bin/gnome-shell"],
        "geoclue-demo-agent": ["/usr/libexec/geoclue-2.0/demos/agent"],
        "sm.puri.Phosh": ["/usr/libexec/phosh"],
    ]

    package init(ids: Set<String>, file: String, executables: [String: [String]] = AgentWhitelist.desktopAgents) {
        self.ids = ids
        self.file = file
        self.executables = executables
        self.resolvedExecutables = executables.mapValues { Set($0.compactMap(Self.resolved)) }
    }

    /// The whitelist of GeoClue's configuration at `main` (with its `conf.d`), `nil` when the file does not exist or
    /// writes none: then every agent is taken.
    /// - Parameter executables: `--agent-executable` options, id → paths, each replacing that id's built-in list.
    /// - Throws: a file that cannot be read or has a bad line or value, naming file, line and key (G30).
    package static func load(
        main: String,
        executables: [String: [String]] = [:]
    ) throws(GeoClueIssue) -> AgentWhitelist? {
        guard let keyFile = try GeoClueKeyFile.load(main: main),
            let ids = try GeoClueSettings(keyFile).agentWhitelist
        else { return nil }
        return AgentWhitelist(
            ids: Set(ids),
            file: keyFile.entry("agent", "whitelist")?.file ?? main,
            executables: desktopAgents.merging(executables) { $1 }
        )
    }

    /// Parses an `--agent-executable` value, `ID=PATH` with an absolute path; `nil` when it is not one.
    package static func option(_ value: String) -> (id: String, path: String)? {
        guard let equals = value.firstIndex(of: "=") else { return nil }
        let id = String(value[..<equals])
        let path = String(value[value.index(after: equals)...])
        guard !id.isEmpty, path.hasPrefix("/") else { return nil }
        return (id, path)
    }

    private static func resolved(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
