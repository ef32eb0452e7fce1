import ArgumentParser
import JSON
import Varlink

/// `locctl apps`: every app locd knows, with its authorization status beside its Settings label (A2).
struct AppsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apps",
        abstract: "List the apps locd knows, their state and authorization.",
        discussion: """
            One line per app: its id, lifecycle state (notRunning, foreground, background, \
            terminated), whether it is in use, its authorization status and, beside it, the label a \
            Settings screen shows for it (SEMANTICS A2), its accuracy, its sessions and clients, and, \
            for an app with no manifest of its own, the user whose process made it (SEMANTICS F20: \
            "unknown" when locd does not know; "-" for an app with a manifest of its own).

            --user NAME|UID lists only the apps that user made; locctl forget --user forgets them.

            With --json, prints the apps array of io.locd.Admin.ListApps (AppEntry fields: appId, \
            manifest, state, inUse, usingLocationInBackground, authorization{status, accuracy, \
            provisional, oneTime, temporaryFullAccuracy, settingsLabel}, clients, sessions, and owner \
            (a uid) or ownerUnknown for an app with no manifest of its own).

            Example: locctl apps --user nobody
            """
    )

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions

    @Option(name: .long, help: "List only the apps this user (a name or a uid) made.", completion: .none)
    var user: String?

    func run() throws {
        let owner = try user.map(Users.resolve)
        let reply = try connection.call("io.locd.Admin.ListApps")
        print(Self.output(reply, options: output, owner: owner, style: .standardOutput), terminator: "")
    }

    /// What the command prints for an `Admin.ListApps` reply.
    /// - Parameters:
    ///   - owner: list only the apps this uid made.
    ///   - userName: the name of a uid, where the system knows one.
    static func output(
        _ reply: JSONObject,
        options: OutputOptions,
        owner: UInt32? = nil,
        style: Style = .plain,
        userName: (UInt32) -> String? = Users.name(of:)
    ) -> String {
        var apps = reply["apps"] ?? .array([])
        if let owner {
            apps = .array((apps.arrayValue ?? []).filter { $0["owner"]?.intValue == Int64(owner) })
        }
        return options.json
            ? JSONOutput.line(apps) + "\n" : render(apps, style: style, legend: !options.noLegend, userName: userName)
    }

    /// The USER cell of an app: who made an app with no manifest of its own (F20).
    static func user(_ app: JSONValue, userName: (UInt32) -> String?) -> String {
        if let uid = app["owner"]?.intValue, let owner = UInt32(exactly: uid) { return userName(owner) ?? String(uid) }
        return app["ownerUnknown"]?.boolValue == true ? "unknown" : "-"
    }

    /// The table, separate so it can be tested on a fixed reply.
    static func render(
        _ apps: JSONValue,
        style: Style = .plain,
        legend: Bool = true,
        userName: (UInt32) -> String? = Users.name(of:)
    ) -> String {
        var table = Table(
            headers: ["APP", "STATE", "IN USE", "STATUS", "SETTING", "ACCURACY", "SESSIONS", "CLIENTS", "USER"]
        )
        let entries = apps.arrayValue ?? []
        for app in entries {
            let authorization = app["authorization"]
            let status = authorization?["status"]?.stringValue ?? "?"
            let label = authorization?["settingsLabel"]?.stringValue ?? "?"
            let inUse =
                app["inUse"]?.boolValue == true
                ? (app["usingLocationInBackground"]?.boolValue == true ? "background" : "yes") : "no"
            table.rows.append([
                Table.Cell(app["appId"]?.stringValue ?? "?"),
                Table.Cell(app["state"]?.stringValue ?? "?"),
                Table.Cell(inUse, inUse == "no" ? nil : .green),
                Table.Cell(status + AppCommand.qualifiers(authorization), .of(status)),
                Table.Cell(label, .of(label)),
                Table.Cell(AppCommand.accuracy(authorization)),
                Table.Cell(String(app["sessions"]?.intValue ?? 0)),
                Table.Cell(String(app["clients"]?.intValue ?? 0)),
                Table.Cell(user(app, userName: userName)),
            ])
        }
        let count = entries.count
        return table.render(style: style, legend: legend, footer: "\(count) app\(count == 1 ? "" : "s") listed.")
    }
}
