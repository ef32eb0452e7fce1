import GeoClueConfiguration

/// GeoClue's `[agent] whitelist` (SEMANTICS G34): the desktop ids that may register as GeoClue agents.
package struct AgentWhitelist: Hashable, Sendable {
    /// The ids written.
    package var ids: Set<String>
    /// Where it was written, for the refusal's message.
    package var file: String

    package init(ids: Set<String>, file: String) {
        self.ids = ids
        self.file = file
    }

    /// The whitelist of GeoClue's configuration at `main` (with its `conf.d`), `nil` when the file does not exist or
    /// writes none: then every agent is taken.
    /// - Throws: a file that cannot be read or has a bad line or value, naming file, line and key (G30).
    package static func load(main: String) throws(GeoClueIssue) -> AgentWhitelist? {
        guard let keyFile = try GeoClueKeyFile.load(main: main),
            let ids = try GeoClueSettings(keyFile).agentWhitelist
        else { return nil }
        return AgentWhitelist(ids: Set(ids), file: keyFile.entry("agent", "whitelist")?.file ?? main)
    }
}
