import ArgumentParser
import JSON
import LocationProtocol
import Varlink

/// `locctl apps`: every app the caller reaches, with its authorization status beside its Settings label (A2).
struct AppsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apps",
        abstract: "List the apps locd knows, their state and authorization.",
        discussion: """
            One line per app: its id, the user whose app it is, its lifecycle state (notRunning, \
            foreground, background, terminated), whether it is in use, its authorization status and, \
            beside it, the label a Settings screen shows for it (SEMANTICS A2), its accuracy, its \
            sessions and clients, and the administrator's setting of the app for every user (H5: \
            "whileUsing max" is the loosest setting a user may choose, "approximate" no precise \
            locations; "-" where there is none).

            Every app is a user's app (SEMANTICS H1): USER is its user's name, or the uid where no \
            name resolves. An administrator sees every user's apps, and each installed app's entry of \
            no user ("-"), which holds its manifest; anyone else sees only their own apps. An app kept \
            with no user and no manifest of its own whose maker is not known shows "unknown".

            --user NAME|UID lists only that user's apps.

            With --json, prints the apps array of io.locd.Admin.ListApps (AppEntry fields: appId, \
            manifest, state, inUse, usingLocationInBackground, authorization{status, accuracy, \
            provisional, oneTime, temporaryFullAccuracy, settingsLabel}, clients, sessions, user (a \
            uid; absent for an installed app's entry of no user), policy{setting, precise}, and owner \
            (a uid) or ownerUnknown for an app with no manifest of its own, and stateSource: who \
            decided a running app's state, its desktop or "app").

            Where the person's desktop decides what is in front (SEMANTICS L11, locd-agent), STATE \
            names it: "background (sway)"; a state the app said itself shows alone.

            Example: locctl apps --user nobody
            """
    )

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions

    @Option(name: .long, help: "List only this user's apps (a name or a uid).", completion: .none)
    var user: String?

    func run() throws {
        let uid = try user.map(Users.resolve)
        let reply = try connection.call(AdminMethod.listApps.name, uid.map { ["user": .int(Int64($0))] } ?? [:])
        print(Self.output(reply, options: output, user: uid, style: .standardOutput), terminator: "")
    }

    /// What the command prints for an `Admin.ListApps` reply.
    /// - Parameters:
    ///   - user: list only this uid's apps.
    ///   - userName: the name of a uid, where the system knows one.
    static func output(
        _ reply: JSONObject,
        options: OutputOptions,
        user: UInt32? = nil,
        style: Style = .plain,
        userName: (UInt32) -> String? = Users.name(of:)
    ) -> String {
        var apps = reply["apps"] ?? .array([])
        if let user {
            apps = .array((apps.arrayValue ?? []).filter { uid(of: $0) == user })
        }
        return options.json
            ? JSONOutput.line(apps) + "\n" : render(apps, style: style, legend: !options.noLegend, userName: userName)
    }

    /// The uid whose app this is (H1): its `user`; for an app of no user, the `owner` that made it, which a locd
    /// from before H1 gave alone (F20).
    static func uid(of app: JSONValue) -> UInt32? {
        Users.uid(in: app) ?? Users.uid(in: app, key: "owner")
    }

    /// The USER cell of an app: its user; "unknown" for an app with no manifest of its own whose maker is not
    /// known (F20); "-" for an installed app's entry of no user (H2).
    static func user(_ app: JSONValue, userName: (UInt32) -> String?) -> String {
        if let uid = uid(of: app) { return Users.label(uid, name: userName) }
        return app["ownerUnknown"]?.boolValue == true ? "unknown" : "-"
    }

    /// The POLICY cell of an app: the administrator's setting for every user (H5), "whileUsing max, approximate",
    /// or "-".
    static func policy(_ app: JSONValue) -> String {
        let words = policyWords(app["policy"])
        return words.isEmpty ? "-" : words.joined(separator: ", ")
    }

    /// What an administrator's setting for every user holds: the loosest setting a user may choose, and whether
    /// locations are approximate for every user (or precise, as the administrator set it).
    static func policyWords(_ policy: JSONValue?) -> [String] {
        var words: [String] = []
        if let setting = policy?["setting"]?.stringValue { words.append("\(setting) max") }
        switch policy?["precise"]?.boolValue {
        case false?: words.append("approximate")
        case true?: words.append("precise")
        case nil: break
        }
        return words
    }

    /// The table, separate so it can be tested on a fixed reply.
    /// The app's state, with the desktop that decided it where one did (L13).
    static func state(_ app: JSONValue) -> String {
        let state = app["state"]?.stringValue ?? "?"
        guard let source = app["stateSource"]?.stringValue, source != "app" else { return state }
        return "\(state) (\(source))"
    }

    static func render(
        _ apps: JSONValue,
        style: Style = .plain,
        legend: Bool = true,
        userName: (UInt32) -> String? = Users.name(of:)
    ) -> String {
        let apps = apps.shownAsText  // I16
        var table = Table(
            headers: [
                "APP", "USER", "STATE", "IN USE", "STATUS", "SETTING", "ACCURACY", "SESSIONS", "CLIENTS", "POLICY",
            ]
        )
        let entries = apps.arrayValue ?? []
        for app in entries {
            let authorization = app["authorization"]
            let status = authorization?["status"]?.stringValue ?? "?"
            let label = authorization?["settingsLabel"]?.stringValue ?? "?"
            let inUse =
                app["inUse"]?.boolValue == true
                ? (app["usingLocationInBackground"]?.boolValue == true ? "background" : "yes") : "no"
            let policy = policy(app)
            table.rows.append([
                Table.Cell(app["appId"]?.stringValue ?? "?"),
                Table.Cell(user(app, userName: userName)),
                Table.Cell(state(app)),
                Table.Cell(inUse, inUse == "no" ? nil : .green),
                Table.Cell(status + AppCommand.qualifiers(authorization), .of(status)),
                Table.Cell(label, .of(label)),
                Table.Cell(AppCommand.accuracy(authorization)),
                Table.Cell(String(app["sessions"]?.intValue ?? 0)),
                Table.Cell(String(app["clients"]?.intValue ?? 0)),
                Table.Cell(policy, policy == "-" ? nil : .yellow),
            ])
        }
        let count = entries.count
        return table.render(style: style, legend: legend, footer: "\(count) app\(count == 1 ? "" : "s") listed.")
    }
}
