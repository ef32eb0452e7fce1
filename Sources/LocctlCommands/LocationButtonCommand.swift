import ArgumentParser
import JSON
import LocationProtocol
import Varlink

/// `locctl location-button ID`: what pressing a trusted location button in the app does.
struct LocationButtonCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "location-button",
        abstract: "Press a trusted location button for an app: a one-time grant without a prompt.",
        discussion: """
            A foreground app that is not authorized gets a one-time grant at once, without a \
            prompt, even if it was denied (SEMANTICS P11, iOS's LocationButton); an app that is \
            already authorized, not in the foreground, or restricted keeps its record. Prints the \
            record that results; exits 4 when locd knows no such app.

            A button is pressed in a user's running app (SEMANTICS H1): --user NAME|UID names whose, \
            and without it the app is your own. Pressing one is for administrators (SEMANTICS H4): \
            anyone else is refused with org.varlink.service.PermissionDenied.

            With --json, prints the Authorization object of io.locd.Admin.LocationButton.

            Example: locctl location-button com.example.maps --user alice
            """
    )

    @OptionGroup var connection: ConnectionOptions

    @Argument(help: "The app's id.", completion: .custom(LiveCompletion.appIDs))
    var appID: String

    @OptionGroup var who: UserOptions

    @Flag(name: .long, help: "Print the resulting Authorization as JSON, with its stable field names.")
    var json = false

    func run() throws {
        let user = try who.uid()
        // An installed app's entry of no user never runs (H2), so a button without --user is in the caller's app.
        let parameters: JSONObject = ["appId": .string(appID), "user": .int(Int64(user ?? Users.current))]
        let reply = try connection.call(AdminMethod.locationButton.name, parameters)
        let reach: AuthCommand.Reach = user.map { .user($0) } ?? .own
        print(AuthCommand.output(reply, of: appID, json: json, reach: reach, style: .standardOutput), terminator: "")
    }
}
