import ArgumentParser
import JSON
import LocationProtocol
import Varlink

/// `locctl sessions`: every session, or one app's, with the flags that limit it.
struct SessionsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sessions",
        abstract: "List sessions: requirement, kind, state, diagnostic flags, lingering deadline.",
        discussion: """
            One line per session: its id, app, the user whose app it is (SEMANTICS H1), kind \
            (explicit, implicit, backgroundActivity), the authorization it requires (none, whenInUse, \
            always), its state (active, limited, lingering, invalidated), the diagnostic flags that \
            limit it, and for a lingering session how long until it ends ("in 4.2 s"). Exits 4 when \
            --app names an app locd does not know.

            An administrator sees every user's sessions, and --user NAME|UID keeps one user's; anyone \
            else sees the sessions of their own apps, and naming another user is refused \
            (org.varlink.service.PermissionDenied).

            With --json, prints the sessions array of io.locd.Admin.ListSessions (Session fields: \
            id, appId, kind, authorization, fullAccuracyPurposeKey, state, diagnostic{flags, mask}, \
            deadline, remainingSeconds, user; absent optional fields are left out).

            Example: locctl sessions --app com.example.maps --user alice
            """
    )

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions

    @Option(name: .customLong("app"), help: ArgumentHelp("Only this app's sessions.", valueName: "id"))
    var appID: String?

    @OptionGroup var who: UserOptions

    func run() throws {
        var parameters: JSONObject = [:]
        if let appID { parameters["appId"] = .string(appID) }
        if let user = try who.uid() { parameters["user"] = .int(Int64(user)) }
        let reply = try connection.call(AdminMethod.listSessions.name, parameters)
        print(Self.output(reply, options: output, style: .standardOutput), terminator: "")
    }

    /// What the command prints for an `Admin.ListSessions` reply.
    static func output(
        _ reply: JSONObject,
        options: OutputOptions,
        style: Style = .plain,
        userName: (UInt32) -> String? = Users.name(of:)
    ) -> String {
        let sessions = reply["sessions"] ?? .array([])
        return options.json
            ? JSONOutput.line(sessions) + "\n"
            : render(sessions, style: style, legend: !options.noLegend, userName: userName)
    }

    /// The table, separate so it can be tested on a fixed reply.
    static func render(
        _ sessions: JSONValue,
        style: Style = .plain,
        legend: Bool = true,
        userName: (UInt32) -> String? = Users.name(of:)
    ) -> String {
        let sessions = sessions.shownAsText  // I16
        var table = Table(
            headers: ["SESSION", "APP", "USER", "KIND", "REQUIREMENT", "STATE", "LINGERING", "DIAGNOSTIC"]
        )
        let entries = sessions.arrayValue ?? []
        for session in entries {
            let state = session["state"]?.stringValue ?? "?"
            let flags = SessionCommand.flags(session)
            table.rows.append([
                Table.Cell(session["id"]?.stringValue ?? "?"),
                Table.Cell(session["appId"]?.stringValue ?? "?"),
                Table.Cell(Users.uid(in: session).map { Users.label($0, name: userName) } ?? "-"),
                Table.Cell(session["kind"]?.stringValue ?? "?"),
                Table.Cell(session["authorization"]?.stringValue ?? "?"),
                Table.Cell(state, .of(state)),
                Table.Cell(session["remainingSeconds"]?.doubleValue.map(TimeFormat.remaining) ?? "-"),
                Table.Cell(flags.isEmpty ? "-" : flags.joined(separator: ","), flags.isEmpty ? nil : .yellow),
            ])
        }
        let count = entries.count
        return table.render(
            style: style,
            legend: legend,
            footer: "\(count) session\(count == 1 ? "" : "s") listed."
        )
    }
}
