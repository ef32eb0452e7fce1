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
            Settings screen shows for it (SEMANTICS A2), its accuracy, and its sessions and clients.

            With --json, prints the apps array of io.locd.Admin.ListApps (AppEntry fields: appId, \
            manifest, state, inUse, usingLocationInBackground, authorization{status, accuracy, \
            provisional, oneTime, temporaryFullAccuracy, settingsLabel}, clients, sessions).

            Example: locctl apps --no-legend
            """
    )

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        let reply = try connection.call("io.locd.Admin.ListApps")
        print(Self.output(reply, options: output, style: .standardOutput), terminator: "")
    }

    /// What the command prints for an `Admin.ListApps` reply.
    static func output(_ reply: JSONObject, options: OutputOptions, style: Style = .plain) -> String {
        let apps = reply["apps"] ?? .array([])
        return options.json ? JSONOutput.line(apps) + "\n" : render(apps, style: style, legend: !options.noLegend)
    }

    /// The table, separate so it can be tested on a fixed reply.
    static func render(_ apps: JSONValue, style: Style = .plain, legend: Bool = true) -> String {
        var table = Table(headers: ["APP", "STATE", "IN USE", "STATUS", "SETTING", "ACCURACY", "SESSIONS", "CLIENTS"])
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
            ])
        }
        let count = entries.count
        return table.render(style: style, legend: legend, footer: "\(count) app\(count == 1 ? "" : "s") listed.")
    }
}
