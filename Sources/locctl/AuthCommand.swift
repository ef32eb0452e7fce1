import ArgumentParser
import JSON
import Varlink

/// `locctl auth ID SETTING`: changes an app's authorization as a Settings screen would (A3).
struct AuthCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "auth",
        abstract: "Set an app's authorization as a Settings screen would.",
        discussion: """
            never denies; ask-next-time makes the app ask again; while-using and always grant. \
            --precise on|off sets precise (full) or approximate (reduced) accuracy, alone or with \
            a setting. Any change clears one-time and temporary full accuracy, and withdraws the \
            app's prompts that no longer apply (SEMANTICS A3). Prints the record that results; \
            exits 4 when locd knows no such app.

            With --json, prints the Authorization object of io.locd.Admin.SetAuthorization \
            (fields: status, accuracy, provisional, oneTime, temporaryFullAccuracy, settingsLabel).

            Example: locctl auth com.example.maps while-using --precise off
            """
    )

    @OptionGroup var connection: ConnectionOptions

    @Argument(help: "The app's id.")
    var appID: String

    @Argument(help: "never, ask-next-time, while-using or always.")
    var setting: AuthorizationSetting?

    @Option(
        name: .long,
        help: ArgumentHelp("Precise location: on (full accuracy) or off (approximate).", valueName: "on|off")
    )
    var precise: Switch?

    @Flag(name: .long, help: "Print the resulting Authorization as JSON, with its stable field names.")
    var json = false

    func validate() throws {
        if setting == nil && precise == nil {
            throw ValidationError(
                "Name a setting (never, ask-next-time, while-using, always), --precise on|off, or both."
            )
        }
    }

    func run() throws {
        var parameters: JSONObject = ["appId": .string(appID)]
        if let setting { parameters["setting"] = .string(setting.wireName) }
        if let precise { parameters["precise"] = .bool(precise.isOn) }
        let reply = try connection.call("io.locd.Admin.SetAuthorization", parameters)
        print(Self.output(reply, of: appID, json: json, style: .standardOutput), terminator: "")
    }

    /// What `auth` and `location-button` print for a reply carrying an app's `authorization`.
    static func output(_ reply: JSONObject, of appID: String, json: Bool, style: Style = .plain) -> String {
        let authorization = reply["authorization"] ?? .null
        return (json ? JSONOutput.line(authorization) : render(authorization, of: appID, style: style)) + "\n"
    }

    /// "com.example.maps: authorizedWhenInUse, Settings whileUsing, accuracy full".
    static func render(_ authorization: JSONValue, of appID: String, style: Style = .plain) -> String {
        let status = authorization["status"]?.stringValue ?? "?"
        let label = authorization["settingsLabel"]?.stringValue ?? "?"
        return "\(appID): \(style.paint(status, .of(status)))\(AppCommand.qualifiers(authorization)), "
            + "Settings \(style.paint(label, .of(label))), accuracy \(AppCommand.accuracy(authorization))"
    }
}
