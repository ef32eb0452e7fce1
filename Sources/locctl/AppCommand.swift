import ArgumentParser
import JSON
import Varlink

/// `locctl app ID`: one app in full, with the sessions it holds.
struct AppCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "app",
        abstract: "Show one app: state, authorization, Settings label and sessions.",
        discussion: """
            Exits 4 when locd knows no app with that id.

            With --json, prints that app's AppEntry object from io.locd.Admin.ListApps (the fields \
            locctl apps --json lists).

            Example: locctl app com.example.maps
            """
    )

    @OptionGroup var connection: ConnectionOptions

    @Argument(help: "The app's id, as its manifest names it (com.example.maps).", completion: .none)
    var appID: String

    @Flag(name: .long, help: "Print the app's AppEntry as JSON, with its stable field names.")
    var json = false

    func run() throws {
        let apps = try connection.call("io.locd.Admin.ListApps")
        guard Self.entry(appID, in: apps) != nil else {
            throw CommandFailure.notFound(
                "io.locd.Admin.NoSuchApp",
                "locd knows no app \(appID); locctl apps lists them, and a manifest in apps.d adds one."
            )
        }
        let sessions = json ? [:] : try connection.call("io.locd.Admin.ListSessions", ["appId": .string(appID)])
        let text = Self.output(appID, apps: apps, sessions: sessions, json: json, style: .standardOutput)
        print(text ?? "", terminator: "")
    }

    /// The app's entry in an `Admin.ListApps` reply.
    static func entry(_ appID: String, in reply: JSONObject) -> JSONValue? {
        reply["apps"]?.arrayValue?.first { $0["appId"]?.stringValue == appID }
    }

    /// What the command prints for the replies of `Admin.ListApps` and the app's `Admin.ListSessions`;
    /// `nil` when the app is not listed.
    static func output(
        _ appID: String,
        apps: JSONObject,
        sessions: JSONObject,
        json: Bool,
        style: Style = .plain,
        userName: (UInt32) -> String? = Users.name(of:)
    ) -> String? {
        guard let app = entry(appID, in: apps) else { return nil }
        if json { return JSONOutput.line(app) + "\n" }
        return render(app, sessions: sessions["sessions"] ?? .array([]), style: style, userName: userName)
    }

    /// The human rendering, separate so it can be tested on fixed replies.
    static func render(
        _ app: JSONValue,
        sessions: JSONValue,
        style: Style = .plain,
        userName: (UInt32) -> String? = Users.name(of:)
    ) -> String {
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
        // F20: who made an app with no manifest of its own.
        if app["owner"] != nil || app["ownerUnknown"] != nil {
            fields.add("User", AppsCommand.user(app, userName: userName))
        }
        fields.add("State", "\(state) (\(inUse))")
        fields.add("Status", style.paint(status, .of(status)) + qualifiers(authorization))
        fields.add("Settings", style.paint(label, .of(label)))
        fields.add("Accuracy", accuracy(authorization))
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
