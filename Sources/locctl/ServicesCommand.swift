import ArgumentParser
import Varlink

/// `locctl services on|off`: the global location-services switch.
struct ServicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "services",
        abstract: "Turn location services on or off for every app.",
        discussion: """
            Off denies location to every app at once (diagnostic authorizationDeniedGlobally) and \
            withdraws every pending prompt; on lets prompts be asked again. The switch is stored, \
            so it outlives a restart. Prints nothing on success.

            Example: locctl services off
            """
    )

    @OptionGroup var connection: ConnectionOptions

    @Argument(help: "on or off.")
    var state: Switch

    func run() throws {
        _ = try connection.call("io.locd.Admin.SetLocationServices", ["enabled": .bool(state.isOn)])
    }
}
