import ArgumentParser
import JSON
import LocationProtocol
import Varlink

/// `locctl app ID`: one app in full, with the sessions it holds.
struct AppCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "app",
        abstract: "Show one app: state, authorization, Settings label and sessions.",
        discussion: """
            Every app is a user's app (SEMANTICS H1). Without --user this shows your own app of that \
            id; where you have none, an administrator sees the installed app's entry of no user, with \
            the users whose app of it locd keeps (locctl app ID --user NAME shows one). Exits 4 when \
            locd knows no app with that id that you reach.

            With --json, prints that app's AppEntry object from io.locd.Admin.ListApps (the fields \
            locctl apps --json lists).

            Example: locctl app com.example.maps
            """
    )

    @OptionGroup var connection: ConnectionOptions

    @Argument(
        help: "The app's id, as its manifest names it (com.example.maps).",
        completion: .custom(LiveCompletion.appIDs)
    )
    var appID: String

    @OptionGroup var who: UserOptions

    @Flag(name: .long, help: "Print the app's AppEntry as JSON, with its stable field names.")
    var json = false

    /// Accepted as every command accepts it, as systemctl's options are: this command prints no table.
    @Flag(name: .long, help: "Accepted for scripts that pass it to every command; there is no table here.")
    var noLegend = false

    func run() throws {
        let user = try who.uid()
        let client = try connection.connect()
        let apps = try connection.call(AdminMethod.listApps.name, on: client)
        guard let app = Self.entry(appID, user: user, own: Users.current, in: apps) else {
            let whose = user.map { " of user \(Users.describe($0))" } ?? ""
            throw CommandFailure.notFound(
                WireErrorName.noSuchApp.name,
                "locd knows no app \(appID)\(whose) that you reach; locctl apps lists them, and a manifest in "
                    + "apps.d adds one."
            )
        }
        var sessions: JSONObject = [:]
        if !json && (app["sessions"]?.intValue ?? 0) > 0 {
            var parameters: JSONObject = ["appId": .string(appID)]
            if let owner = Users.uid(in: app) { parameters["user"] = .int(Int64(owner)) }
            sessions = try connection.call(AdminMethod.listSessions.name, parameters, on: client)
        }
        let text = Self.output(
            appID,
            apps: apps,
            sessions: sessions,
            json: json,
            user: user,
            own: Users.current,
            style: .standardOutput
        )
        print(text ?? "", terminator: "")
    }

    /// The app's entry in an `Admin.ListApps` reply: `user`'s app where a user is named; else the caller's own
    /// (`own`), else the installed app's entry of no user, else the first listed (H1, H2).
    static func entry(_ appID: String, user: UInt32? = nil, own: UInt32? = nil, in reply: JSONObject) -> JSONValue? {
        let listed = reply["apps"]?.arrayValue?.filter { $0["appId"]?.stringValue == appID } ?? []
        if let user { return listed.first { AppsCommand.uid(of: $0) == user } }
        if let own, let mine = listed.first(where: { AppsCommand.uid(of: $0) == own }) { return mine }
        return listed.first { AppsCommand.uid(of: $0) == nil } ?? listed.first
    }

    /// What the command prints for the replies of `Admin.ListApps` and the app's `Admin.ListSessions`;
    /// `nil` when the app is not listed.
    /// - Parameters:
    ///   - user: the user `--user` names.
    ///   - own: the caller's uid, whose app is shown where no user is named.
    static func output(
        _ appID: String,
        apps: JSONObject,
        sessions: JSONObject,
        json: Bool,
        user: UInt32? = nil,
        own: UInt32? = nil,
        style: Style = .plain,
        userName: (UInt32) -> String? = Users.name(of:)
    ) -> String? {
        guard let app = entry(appID, user: user, own: own, in: apps) else { return nil }
        if json { return JSONOutput.line(app) + "\n" }
        // The users whose app of this id locd keeps, shown beside an installed app's entry of no user.
        let users: [UInt32] =
            AppsCommand.uid(of: app) == nil && app["ownerUnknown"] == nil
            ? (apps["apps"]?.arrayValue ?? []).filter { $0["appId"]?.stringValue == appID }.compactMap(AppsCommand.uid)
            : []
        // The app's own sessions: an entry of no user lists those of no user (H3 keeps some there), not its users'.
        let held = (sessions["sessions"]?.arrayValue ?? []).filter {
            $0["appId"]?.stringValue == appID && Users.uid(in: $0) == Users.uid(in: app)
        }
        return render(
            app,
            sessions: .array(held),
            users: users,
            style: style,
            userName: userName
        )
    }

    /// The human rendering, separate so it can be tested on fixed replies.
    /// - Parameter users: for an installed app's entry of no user, the users whose app of it locd keeps.
    static func render(
        _ app: JSONValue,
        sessions: JSONValue,
        users: [UInt32] = [],
        style: Style = .plain,
        userName: (UInt32) -> String? = Users.name(of:)
    ) -> String {
        let (app, sessions) = (app.shownAsText, sessions.shownAsText)  // I16
        let authorization = app["authorization"]
        let status = authorization?["status"]?.stringValue ?? "?"
        let label = authorization?["settingsLabel"]?.stringValue ?? "?"
        let state = app["state"]?.stringValue ?? "?"
        let inUse: String
        if app["inUse"]?.boolValue == true {
            inUse = app["usingLocationInBackground"]?.boolValue == true ? "in use, in the background" : "in use"
        } else {
            inUse = "not in use"
        }
        var fields = Fields()
        fields.add("Manifest", app["manifest"]?.stringValue ?? "?")
        // H1: whose app it is; F20: who made an app with no manifest of its own, where locd knows.
        if let uid = AppsCommand.uid(of: app) {
            fields.add("User", Users.describe(uid, name: userName))
        } else if app["ownerUnknown"]?.boolValue == true {
            fields.add("User", "unknown")
        }
        if !users.isEmpty {
            fields.add("Users", users.map { Users.describe($0, name: userName) }.joined(separator: ", "))
        }
        fields.add("State", "\(state) (\(inUse))")
        fields.add("Status", style.paint(status, .of(status)) + qualifiers(authorization))
        fields.add("Settings", style.paint(label, .of(label)))
        fields.add("Accuracy", accuracy(authorization))
        let policy = AppsCommand.policyWords(app["policy"])
        if !policy.isEmpty {
            fields.add(
                "Policy",
                style.paint(policy.joined(separator: ", "), .yellow) + " (an administrator's, for every user)"
            )
        }
        fields.add("Clients", String(app["clients"]?.intValue ?? 0))
        fields.add("Sessions", String(app["sessions"]?.intValue ?? 0))
        var out = style.paint(app["appId"]?.stringValue ?? "?", .bold) + "\n" + fields.render()
        if let list = sessions.arrayValue, !list.isEmpty {
            out += "\n" + SessionsCommand.render(sessions, style: style, legend: true)
        }
        return out
    }

    /// "full" or "reduced", with "(temporary)" while a temporary full-accuracy grant lasts.
    static func accuracy(_ authorization: JSONValue?) -> String {
        let accuracy = authorization?["accuracy"]?.stringValue
        let text =
            switch accuracy {
            case "fullAccuracy": "full"
            case "reducedAccuracy": "reduced"
            case let other?: other
            case nil: "?"
            }
        return authorization?["temporaryFullAccuracy"]?.boolValue == true ? text + " (temporary)" : text
    }

    /// The record's qualifiers, " (provisional, one-time)", or nothing.
    static func qualifiers(_ authorization: JSONValue?) -> String {
        var words: [String] = []
        if authorization?["provisional"]?.boolValue == true { words.append("provisional") }
        if authorization?["oneTime"]?.boolValue == true { words.append("one-time") }
        return words.isEmpty ? "" : " (\(words.joined(separator: ", ")))"
    }
}
