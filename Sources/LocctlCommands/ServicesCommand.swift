import ArgumentParser
import JSON
import LocationProtocol
import Varlink

/// `locctl services on|off`: the location-services switch, the machine's for an administrator (A4), else the
/// caller's own (H6).
struct ServicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "services",
        abstract: "Turn location services on or off: for every app, or for your own apps.",
        discussion: """
            An administrator turns location services off for the machine: every app is denied \
            location at once (diagnostic authorizationDeniedGlobally) and every pending prompt is \
            withdrawn; on lets prompts be asked again. Prints nothing on success.

            Anyone else turns them off or on for themselves alone (SEMANTICS H6): their own apps \
            behave as above, other users' are untouched, and the machine's switch, off, still \
            overrides theirs. Prints what changed and for whom.

            Either switch is stored, so it outlives a restart.

            Example: locctl services off
            """
    )

    @OptionGroup var connection: ConnectionOptions

    @Argument(help: "on or off.", completion: .list(["on", "off"]))
    var state: Switch

    func run() throws {
        let client = try connection.connect()
        let status = try connection.call(AdminMethod.status.name, on: client)
        _ = try connection.call(AdminMethod.setLocationServices.name, ["enabled": .bool(state.isOn)], on: client)
        if let text = Self.summary(state, status: status) { print(text) }
    }

    /// What an ordinary user is told their switch now is (H6); `nil` for an administrator, whose switch is the
    /// machine's and who is told nothing, as before.
    /// - Parameter status: the `Admin.Status` reply from before the change: whether the caller administers, and
    ///   the machine's switch, which the caller's does not move.
    static func summary(_ state: Switch, status: JSONObject) -> String? {
        guard !ConnectionOptions.isAdministrator(status) else { return nil }
        if !state.isOn {
            return "Location services are off for you only; an administrator turns them off for the machine."
        }
        guard status["status"]?["locationServicesEnabled"]?.boolValue != false else {
            return "Location services are on for you, but an administrator turned them off for the machine."
        }
        return "Location services are on for you."
    }
}
