import ArgumentParser

/// `locctl reload`: re-reads the configuration and manifests, as `systemctl reload locd` does.
struct ReloadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reload",
        abstract: "Re-read locd.toml and the app manifests without dropping a session.",
        discussion: """
            A broken manifest is logged with its file, line and key (journalctl -u locd) and the \
            others still load. Prints nothing on success.

            Example: locctl reload
            """
    )

    @OptionGroup var connection: ConnectionOptions

    func run() throws {
        _ = try connection.call("io.locd.Admin.Reload")
    }
}
