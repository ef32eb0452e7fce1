import ArgumentParser
import DisplayText
import JSON
import LocationProtocol
import Varlink

/// `locctl auth ID SETTING`: changes an app's authorization as a Settings screen would (A3): a person's own app,
/// or, for an administrator, every user's (H5) or one user's.
struct AuthCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "auth",
        abstract: "Set an app's authorization as a Settings screen would.",
        discussion: """
            never denies; ask-next-time makes the app ask again; while-using and always grant \
            (askNextTime and whileUsing, as locctl apps prints them, are taken too). --precise on|off \
            sets precise (full) or approximate (reduced) accuracy, alone or with a setting. Any change \
            clears one-time and temporary full accuracy, and withdraws the app's prompts that no longer \
            apply (SEMANTICS A3). Prints the record that results; exits 4 when locd knows no such app.

            Anyone sets their own app (SEMANTICS H4), within what an administrator set for every user: \
            a looser setting than that is refused with org.varlink.service.PermissionDenied, whose \
            message names the administrator's setting. An administrator without --user sets the app \
            for every user (H5): every user's app of that id takes the setting, each one made later \
            starts with it, and no user may choose a looser one (ask-next-time makes every user's app \
            ask again and leaves the choice to them). An administrator's --user NAME|UID sets that \
            user's app alone.

            With --json, prints the Authorization object of io.locd.Admin.SetAuthorization \
            (fields: status, accuracy, provisional, oneTime, temporaryFullAccuracy, settingsLabel).

            Example: locctl auth com.example.maps while-using --precise off
            """
    )

    @OptionGroup var connection: ConnectionOptions

    @Argument(help: "The app's id.", completion: .custom(LiveCompletion.appIDs))
    var appID: String

    @Argument(help: "never, ask-next-time, while-using or always.")
    var setting: AuthorizationSetting?

    @Option(
        name: .long,
        help: ArgumentHelp("Precise location: on (full accuracy) or off (approximate).", valueName: "on|off")
    )
    var precise: Switch?

    @OptionGroup var who: UserOptions

    @Flag(name: .long, help: "Print the resulting Authorization as JSON, with its stable field names.")
    var json = false

    /// Whose app a setting went to, which the printed record says.
    enum Reach: Equatable {
        /// The caller's own app.
        case own
        /// One user's app, named with `--user`.
        case user(UInt32)
        /// An administrator's setting for every user (H5).
        case everyone
    }

    func validate() throws {
        if setting == nil && precise == nil {
            throw ValidationError(
                "Name a setting (never, ask-next-time, while-using, always), --precise on|off, or both."
            )
        }
    }

    func run() throws {
        let user = try who.uid()
        var parameters: JSONObject = ["appId": .string(appID)]
        if let setting { parameters["setting"] = .string(setting.wireName) }
        if let precise { parameters["precise"] = .bool(precise.isOn) }
        if let user { parameters["user"] = .int(Int64(user)) }
        let client = try connection.connect()
        let reply = try connection.call(AdminMethod.setAuthorization.name, parameters, on: client)
        let reach: Reach
        if let user {
            reach = .user(user)
        } else if json {
            reach = .own  // The JSON is the record alone, whoever's it is.
        } else {
            // Only an administrator's call without a user is for every user (H5).
            reach = try connection.isAdministrator(on: client) ? .everyone : .own
        }
        let text = Self.output(reply, of: appID, json: json, reach: reach, setting: setting, style: .standardOutput)
        print(text, terminator: "")
    }

    /// What `auth` and `location-button` print for a reply carrying an app's `authorization`.
    /// - Parameters:
    ///   - reach: whose app it was.
    ///   - setting: the setting given, which says whether an administrator's setting for every user is a ceiling.
    static func output(
        _ reply: JSONObject,
        of appID: String,
        json: Bool,
        reach: Reach = .own,
        setting: AuthorizationSetting? = nil,
        style: Style = .plain,
        userName: (UInt32) -> String? = Users.name(of:)
    ) -> String {
        let authorization = reply["authorization"] ?? .null
        if json { return JSONOutput.line(authorization) + "\n" }
        var app = appID
        if case .user(let uid) = reach { app += " of user " + Users.describe(uid, name: userName) }
        var out = render(authorization, of: app, style: style) + "\n"
        if reach == .everyone {
            out +=
                setting == .askNextTime
                ? "  for every user; each user's app asks again, and its user decides\n"
                : "  for every user; users may choose only a stricter setting\n"
        }
        return out
    }

    /// "com.example.maps: authorizedWhenInUse, Settings whileUsing, accuracy full".
    static func render(_ authorization: JSONValue, of appID: String, style: Style = .plain) -> String {
        let (authorization, appID) = (authorization.shownAsText, appID.escapedForDisplay)  // I16
        let status = authorization["status"]?.stringValue ?? "?"
        let label = authorization["settingsLabel"]?.stringValue ?? "?"
        return "\(appID): \(style.paint(status, .of(status)))\(AppCommand.qualifiers(authorization)), "
            + "Settings \(style.paint(label, .of(label))), accuracy \(AppCommand.accuracy(authorization))"
    }
}
