import ArgumentParser
import LocationProtocol

/// `locctl reload`: re-reads the configuration and manifests, as `systemctl reload locd` does.
struct ReloadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reload",
        abstract: "Re-read locd.toml and the app manifests without dropping a session.",
        discussion: """
            Returns once the reload is done, so the next command sees the new state. A broken \
            manifest is logged with its file, line and key (journalctl -u locd) and the others \
            still load; a locd.toml that does not load changes nothing and fails with \
            org.varlink.service.InvalidParameter naming its file, line and key. Prints nothing on \
            success.

            Example: locctl reload
            """
    )

    @OptionGroup var connection: ConnectionOptions

    func run() throws {
        _ = try connection.call(AdminMethod.reload.name)
    }
}
