import Foundation
import JSON
import Testing
import Varlink

@testable import locctl

/// Human and `--json` output of every read command, on fixed Admin replies, against golden files.
@Suite("locctl rendering")
struct RenderingTests {
    /// A fixed "now": 25 s after the last fix in status.json.
    let now = 1_763_778_210.0

    @Test("S12: status shows the apps using location now and in the background, and the provider's last fix")
    func statusHuman() throws {
        let reply = try Golden.reply("status.json")
        let text = try #require(StatusCommand.output(reply, json: false, now: now, timeZone: Golden.utc))
        try Golden.check(text, "status.txt")
    }

    @Test("locctl status: a reply without the optional provider fields, services off and a failing store")
    func statusIdle() throws {
        let reply = try Golden.reply("status-idle.json")
        let text = try #require(StatusCommand.output(reply, json: false, now: now, timeZone: Golden.utc))
        try Golden.check(text, "status-idle.txt")
    }

    @Test("locctl status --json: the DaemonStatus object, every field, keys sorted")
    func statusJSON() throws {
        let reply = try Golden.reply("status.json")
        let text = try #require(StatusCommand.output(reply, json: true, now: now))
        try Golden.check(text, "status.json.txt")
        #expect(JSONValue.parse(Array(text.utf8)) == reply["status"])
    }

    @Test("U16: status with several providers shows each one's state and fix, and which supplied the last fix")
    func statusProviders() throws {
        let reply = try Golden.reply("status-providers.json")
        let text = try #require(StatusCommand.output(reply, json: false, now: now, timeZone: Golden.utc))
        try Golden.check(text, "status-providers.txt")
        #expect(
            text.contains(
                "Provider network: running, fresh fix ±35 m at 02:23:05.000 (25.0 s ago), supplied the last fix"
            )
        )
        let gpsd = text.split(separator: "\n").first { $0.contains("Provider gpsd:") } ?? ""
        #expect(gpsd.contains("Provider gpsd: running, no fresh fix, last ±4 m at 02:22:00.000"))
        #expect(!gpsd.contains("supplied"), "only the provider named in lastFixFrom supplied the last fix")
    }

    @Test("U16: status --json with several providers is the DaemonStatus object, providers and lastFixFrom included")
    func statusProvidersJSON() throws {
        let reply = try Golden.reply("status-providers.json")
        let text = try #require(StatusCommand.output(reply, json: true, now: now))
        try Golden.check(text, "status-providers.json.txt")
        #expect(JSONValue.parse(Array(text.utf8)) == reply["status"])
        #expect(text.contains(#""lastFixFrom":"network""#))
    }

    @Test("locctl status: a reply without a status prints nothing and is a failure")
    func statusMissing() {
        #expect(StatusCommand.output(["other": .int(1)], json: false, now: now) == nil)
    }

    /// User names as a fixed system would give them: 65534 is nobody, 4242 names no one.
    static func users(_ uid: UInt32) -> String? { uid == 65534 ? "nobody" : nil }

    @Test("A2: locctl apps shows each app's status and Settings label side by side")
    func appsHuman() throws {
        let text = AppsCommand.output(
            try Golden.reply("apps.json"),
            options: try OutputOptions.parse([]),
            userName: Self.users
        )
        try Golden.check(text, "apps.txt")
    }

    @Test(
        "F20: locctl apps shows the user that made each app with no manifest of its own, the uid where no name resolves"
    )
    func appsUser() throws {
        let text = AppsCommand.output(
            try Golden.reply("apps.json"),
            options: try OutputOptions.parse(["--no-legend"]),
            userName: Self.users
        )
        let users = text.split(separator: "\n").map { $0.split(separator: " ").last.map(String.init) ?? "" }
        #expect(users == ["-", "-", "-", "-", "nobody", "unknown", "4242"])
    }

    @Test("F20: locctl apps --user lists only the apps that user made")
    func appsOfUser() throws {
        let reply = try Golden.reply("apps.json")
        let json = AppsCommand.output(reply, options: try OutputOptions.parse(["--json"]), owner: 65534)
        let listed = JSONValue.parse(Array(json.utf8))?.arrayValue?.compactMap { $0["appId"]?.stringValue }
        #expect(listed == ["org.invented.Weather"])
        let none = AppsCommand.output(reply, options: try OutputOptions.parse(["--no-legend"]), owner: 1000)
        #expect(none.isEmpty)
    }

    @Test("locctl apps --no-legend: rows only, for scripts")
    func appsNoLegend() throws {
        let text = AppsCommand.output(
            try Golden.reply("apps.json"),
            options: try OutputOptions.parse(["--no-legend"]),
            userName: Self.users
        )
        try Golden.check(text, "apps-no-legend.txt")
    }

    @Test("F20: locctl app ID names the user that made an app with no manifest of its own")
    func appOfUser() throws {
        let apps = try Golden.reply("apps.json")
        let empty = try Golden.reply("sessions-empty.json")
        let text = try #require(
            AppCommand.output("org.invented.Weather", apps: apps, sessions: empty, json: false, userName: Self.users)
        )
        try Golden.check(text, "app-invented.txt")
        let maps = try #require(AppCommand.output("com.ex.denied", apps: apps, sessions: empty, json: false))
        #expect(!maps.contains("User"))
    }

    @Test("F20: locctl forget says how many apps went, and whose")
    func forgetSummary() {
        #expect(
            ForgetCommand.summary(["forgotten": .int(3)], whose: "of user nobody (65534)")
                == "Forgot 3 apps of user nobody (65534)."
        )
        #expect(
            ForgetCommand.summary(["forgotten": .int(1)], whose: "whose maker is unknown")
                == "Forgot 1 app whose maker is unknown."
        )
    }

    @Test("locctl apps --json: the apps array of ListApps")
    func appsJSON() throws {
        let reply = try Golden.reply("apps.json")
        let text = AppsCommand.output(reply, options: try OutputOptions.parse(["--json"]))
        try Golden.check(text, "apps.json.txt")
        #expect(JSONValue.parse(Array(text.utf8)) == reply["apps"])
    }

    @Test("A2: locctl app ID shows one app's status, Settings label, qualifiers and sessions")
    func appHuman() throws {
        let sessions = try Golden.reply("sessions.json")
        let maps: JSONObject = [
            "sessions": .array(sessions["sessions"]!.arrayValue!.filter { $0["appId"] == .string("com.ex.maps") })
        ]
        let text = try #require(
            AppCommand.output("com.ex.maps", apps: try Golden.reply("apps.json"), sessions: maps, json: false)
        )
        try Golden.check(text, "app-maps.txt")
    }

    @Test("locctl app ID: an app without sessions, and --json prints its AppEntry")
    func appJSON() throws {
        let apps = try Golden.reply("apps.json")
        let empty = try Golden.reply("sessions-empty.json")
        try Golden.check(
            try #require(AppCommand.output("com.ex.denied", apps: apps, sessions: empty, json: false)),
            "app-denied.txt"
        )
        let json = try #require(AppCommand.output("com.ex.run", apps: apps, sessions: empty, json: true))
        try Golden.check(json, "app-run.json.txt")
        #expect(JSONValue.parse(Array(json.utf8)) == AppCommand.entry("com.ex.run", in: apps))
    }

    @Test("locctl app ID: an id locd does not list is not found")
    func appMissing() throws {
        let apps = try Golden.reply("apps.json")
        #expect(AppCommand.output("com.ex.nothing", apps: apps, sessions: [:], json: false) == nil)
        #expect(AppCommand.output("com.ex", apps: apps, sessions: [:], json: true) == nil)
    }

    @Test("locctl sessions: requirement, kind, state, diagnostic flags and a lingering deadline as \"in 4.2 s\"")
    func sessionsHuman() throws {
        let text = SessionsCommand.output(try Golden.reply("sessions.json"), options: try OutputOptions.parse([]))
        try Golden.check(text, "sessions.txt")
        #expect(text.contains("in 4.2 s"))
    }

    @Test("locctl sessions: no sessions is an empty table that says so")
    func sessionsEmpty() throws {
        let text = SessionsCommand.output(try Golden.reply("sessions-empty.json"), options: try OutputOptions.parse([]))
        try Golden.check(text, "sessions-empty.txt")
    }

    @Test("locctl sessions --json: the sessions array of ListSessions, optional fields only where sent")
    func sessionsJSON() throws {
        let reply = try Golden.reply("sessions.json")
        let text = SessionsCommand.output(reply, options: try OutputOptions.parse(["--json"]))
        try Golden.check(text, "sessions.json.txt")
        #expect(JSONValue.parse(Array(text.utf8)) == reply["sessions"])
    }

    @Test("locctl session ID: a lingering session in full, and --json prints its Session object")
    func sessionDetail() throws {
        let reply = try Golden.reply("sessions.json")
        try Golden.check(try #require(SessionCommand.output("s1-4", sessions: reply, json: false)), "session-s1-4.txt")
        try Golden.check(try #require(SessionCommand.output("s1-2", sessions: reply, json: false)), "session-s1-2.txt")
        let json = try #require(SessionCommand.output("s1-3", sessions: reply, json: true))
        try Golden.check(json, "session-s1-3.json.txt")
        #expect(SessionCommand.output("s9-9", sessions: reply, json: false) == nil)
    }

    @Test("locctl watch: one line per event, and --json one Event object per line")
    func watchLines() throws {
        let replies = try #require(try Golden.fixture("events.json").arrayValue)
        var human = ""
        var json = ""
        for reply in replies {
            let object = try #require(reply.objectValue)
            human += try #require(WatchCommand.output(object, json: false, timeZone: Golden.utc)) + "\n"
            let line = try #require(WatchCommand.output(object, json: true))
            #expect(JSONValue.parse(Array(line.utf8)) == object["event"])
            json += line + "\n"
        }
        try Golden.check(human, "watch.txt")
        try Golden.check(json, "watch.json.txt")
        #expect(WatchCommand.output([:], json: false) == nil)
    }

    @Test("locctl agent: each kind of prompt with its usage description and numbered options")
    func agentPrompts() throws {
        let prompts = try #require(try Golden.fixture("prompts.json").arrayValue)
        try Golden.check(prompts.map { AgentCommand.render($0) }.joined(separator: "\n"), "agent-prompts.txt")
    }

    @Test("A3: locctl auth and location-button print the resulting record, or its JSON")
    func authorization() throws {
        let reply = try Golden.reply("authorization.json")
        let human = AuthCommand.output(reply, of: "com.ex.maps", json: false)
        #expect(human == "com.ex.maps: authorizedWhenInUse, Settings whileUsing, accuracy reduced\n")
        let json = AuthCommand.output(reply, of: "com.ex.maps", json: true)
        #expect(JSONValue.parse(Array(json.utf8)) == reply["authorization"])
    }

    @Test("locctl: colour never changes the text or the column widths, only wraps cells in escapes")
    func colourKeepsLayout() throws {
        let coloured = Style(colors: true)
        let apps = try Golden.reply("apps.json")
        let plain = AppsCommand.output(apps, options: try OutputOptions.parse([]))
        let painted = AppsCommand.output(apps, options: try OutputOptions.parse([]), style: coloured)
        #expect(painted != plain)
        #expect(painted.contains("\u{1B}[32mauthorizedWhenInUse (one-time)\u{1B}[0m"))
        #expect(Self.strippingEscapes(painted) == plain)
        let status = try #require(StatusCommand.output(try Golden.reply("status-idle.json"), json: false, now: now))
        let paintedStatus = try #require(
            StatusCommand.output(try Golden.reply("status-idle.json"), json: false, now: now, style: coloured)
        )
        #expect(paintedStatus.contains("\u{1B}[31moff\u{1B}[0m"))
        #expect(Self.strippingEscapes(paintedStatus) == status)
    }

    static func strippingEscapes(_ text: String) -> String {
        text.replacing(/\x{1B}\[[0-9;]*m/, with: "")
    }
}
