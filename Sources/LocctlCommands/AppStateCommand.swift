import ArgumentParser
import JSON
import LocationProtocol
import Varlink

/// `locctl app-state ID foreground|background`: moves a running app as its desktop would (SEMANTICS L1).
struct AppStateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "app-state",
        abstract: "Move a running app to the foreground or the background.",
        discussion: """
            What a desktop tells locd when an app's window comes forward or goes away (SEMANTICS L1): \
            in the background a While-Using app keeps location for the background grace, then is no \
            longer in use. The app must be running (have said Hello). Prints nothing on success; \
            exits 4 when locd knows no such app.

            Anyone moves their own app (SEMANTICS H4). An administrator moves any user's: --user \
            NAME|UID names whose, and without it the one running app of that id (an app that runs for \
            several users needs --user).

            Example: locctl app-state com.example.maps background
            """
    )

    @OptionGroup var connection: ConnectionOptions

    @Argument(help: "The app's id.", completion: .custom(LiveCompletion.appIDs))
    var appID: String

    @Argument(help: "foreground or background.", completion: .list(["foreground", "background"]))
    var state: AppState

    @OptionGroup var who: UserOptions

    /// Where a running app can be moved, by its wire name.
    enum AppState: String, CaseIterable, ExpressibleByArgument, Sendable {
        case foreground, background
    }

    func run() throws {
        var parameters: JSONObject = ["appId": .string(appID), "state": .string(state.rawValue)]
        if let user = try who.uid() { parameters["user"] = .int(Int64(user)) }
        _ = try connection.call(AdminMethod.setAppState.name, parameters)
    }
}
