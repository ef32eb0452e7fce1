import ArgumentParser
import JSON
import LocationProtocol
import Varlink

/// `locctl session ID`: one session in full.
struct SessionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "session",
        abstract: "Show one session: app, kind, requirement, state, diagnostics, deadline.",
        discussion: """
            Shows the user whose app holds it (SEMANTICS H1). Exits 4 when no session you reach has \
            that id (locctl sessions lists them): an administrator reaches every user's, anyone else \
            their own apps' sessions.

            Beside the diagnostic, its app's state and who decided it (SEMANTICS L13): "background, \
            decided by sway" where the person's desktop says what is in front (L11, locd-agent), \
            "foreground, the app's own word" where the app's claim decides.

            With --json, prints that session's Session object from io.locd.Admin.ListSessions (the \
            fields locctl sessions --json lists).

            Example: locctl session s1-3
            """
    )

    @OptionGroup var connection: ConnectionOptions

    @Argument(
        help: "The session's id, as locctl sessions prints it (s1-3).",
        completion: .custom(LiveCompletion.sessionIDs)
    )
    var sessionID: String

    @Flag(name: .long, help: "Print the Session object as JSON, with its stable field names.")
    var json = false

    /// Accepted as every command accepts it, as systemctl's options are: this command prints no table.
    @Flag(name: .long, help: "Accepted for scripts that pass it to every command; there is no table here.")
    var noLegend = false

    func run() throws {
        let client = try connection.connect()
        let reply = try connection.call(AdminMethod.listSessions.name, on: client)
        // The app's state and its source (L13): ListApps reaches the same apps as ListSessions (H4).
        let apps = json ? nil : try connection.call(AdminMethod.listApps.name, on: client)
        guard let text = Self.output(sessionID, sessions: reply, apps: apps, json: json, style: .standardOutput)
        else {
            throw CommandFailure.notFound(
                WireErrorName.noSuchSession.name,
                "no session \(sessionID) is open; locctl sessions lists the sessions that are."
            )
        }
        print(text, terminator: "")
    }

    /// What the command prints for an `Admin.ListSessions` reply (and `Admin.ListApps`'s, for the app's state); `nil`
    /// when the session is not in it.
    static func output(
        _ sessionID: String,
        sessions: JSONObject,
        apps: JSONObject? = nil,
        json: Bool,
        style: Style = .plain,
        userName: (UInt32) -> String? = Users.name(of:)
    ) -> String? {
        guard let session = sessions["sessions"]?.arrayValue?.first(where: { $0["id"]?.stringValue == sessionID })
        else { return nil }
        if json { return JSONOutput.line(session) + "\n" }
        // The session's app is the entry with its app id and its user (H1: one app id may be several users' apps).
        let app = apps?["apps"]?.arrayValue?.first {
            $0["appId"] == session["appId"] && $0["user"] == session["user"]
        }
        return render(session, app: app, style: style, userName: userName)
    }

    /// The human rendering, separate so it can be tested on a fixed reply.
    static func render(
        _ session: JSONValue,
        app: JSONValue? = nil,
        style: Style = .plain,
        userName: (UInt32) -> String? = Users.name(of:)
    ) -> String {
        let (session, app) = (session.shownAsText, app?.shownAsText)  // I16
        let state = session["state"]?.stringValue ?? "?"
        let flags = Self.flags(session)
        var fields = Fields()
        fields.add("App", session["appId"]?.stringValue ?? "?")
        // H1: the user whose app holds it.
        if let user = Users.uid(in: session) { fields.add("User", Users.describe(user, name: userName)) }
        fields.add("Kind", session["kind"]?.stringValue ?? "?")
        fields.add("Requirement", session["authorization"]?.stringValue ?? "?")
        if let key = session["fullAccuracyPurposeKey"]?.stringValue {
            fields.add("Full accuracy", "asked for, purpose \(key)")
        }
        fields.add("State", style.paint(state, .of(state)))
        let mask = session["diagnostic"]?["mask"]?.intValue ?? 0
        fields.add(
            "Diagnostic",
            flags.isEmpty
                ? "nothing limits it" : style.paint(flags.joined(separator: ", "), .yellow) + " (mask \(mask))"
        )
        if let state = app?["state"]?.stringValue {
            fields.add("App state", Self.appState(state, source: app?["stateSource"]?.stringValue))
        }
        if let remaining = session["remainingSeconds"]?.doubleValue {
            fields.add("Lingering", "ends \(TimeFormat.remaining(remaining)) unless its app resumes it")
        }
        return style.paint("Session \(session["id"]?.stringValue ?? "?")", .bold) + "\n" + fields.render()
    }

    /// The app's state and who decided it (L13): its desktop, or its own word.
    static func appState(_ state: String, source: String?) -> String {
        switch source {
        case nil: state
        case "app": "\(state), the app's own word"
        case let desktop?: "\(state), decided by \(desktop)"
        }
    }

    /// The diagnostic flags that are set, in the daemon's (bit) order.
    static func flags(_ session: JSONValue) -> [String] {
        session["diagnostic"]?["flags"]?.arrayValue?.compactMap(\.stringValue) ?? []
    }
}
