import ArgumentParser
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

            With --json, prints the Authorization object of io.locd.Admin.LocationButton.

            Example: locctl location-button com.example.maps
            """
    )

    @OptionGroup var connection: ConnectionOptions

    @Argument(help: "The app's id.")
    var appID: String

    @Flag(name: .long, help: "Print the resulting Authorization as JSON, with its stable field names.")
    var json = false

    func run() throws {
        let reply = try connection.call("io.locd.Admin.LocationButton", ["appId": .string(appID)])
        print(AuthCommand.output(reply, of: appID, json: json, style: .standardOutput), terminator: "")
    }
}
