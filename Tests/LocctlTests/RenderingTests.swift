import Foundation
import JSON
import LocationProtocol
import Testing
import Varlink

@testable import LocctlCommands

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

    /// User names as a fixed system would give them: 0 is root, 65534 is nobody, 4242 names no one.
    static func users(_ uid: UInt32) -> String? {
        switch uid {
        case 0: "root"
        case 65534: "nobody"
        default: nil
        }
    }

    /// The cells of one column of a `--no-legend` table whose cells have no spaces up to that column.
    static func column(_ index: Int, of text: String) -> [String] {
        text.split(separator: "\n").map { line in
            let cells = line.split(separator: " ")
            return index < cells.count ? String(cells[index]) : ""
        }
    }

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
        #expect(Self.column(1, of: text) == ["-", "-", "-", "-", "nobody", "unknown", "4242"])
    }

    @Test("F20: locctl apps --user lists only the apps that user made, by owner from a locd before H1")
    func appsOfUser() throws {
        let reply = try Golden.reply("apps.json")
        let json = AppsCommand.output(reply, options: try OutputOptions.parse(["--json"]), user: 65534)
        let listed = JSONValue.parse(Array(json.utf8))?.arrayValue?.compactMap { $0["appId"]?.stringValue }
        #expect(listed == ["org.invented.Weather"])
        let none = AppsCommand.output(reply, options: try OutputOptions.parse(["--no-legend"]), user: 1000)
        #expect(none.isEmpty)
    }

    @Test(
        "H1, H2: locctl apps shows each user's app with its user, the uid where no name resolves, and \"-\" for an installed app's entry of no user"
    )
    func appsOfEveryUser() throws {
        let reply = try Golden.reply("apps-people.json")
        let text = AppsCommand.output(reply, options: try OutputOptions.parse([]), userName: Self.users)
        try Golden.check(text, "apps-people.txt")
        let rows = AppsCommand.output(reply, options: try OutputOptions.parse(["--no-legend"]), userName: Self.users)
        #expect(
            Self.column(0, of: rows) == [
                "com.ex.maps", "com.ex.maps", "com.ex.maps", "com.ex.run", "com.ex.run", "com.ex.denied",
                "org.invented.Weather", "org.invented.Gone",
            ]
        )
        #expect(Self.column(1, of: rows) == ["-", "root", "nobody", "-", "4242", "-", "nobody", "unknown"])
        #expect(text.hasSuffix("\n8 apps listed.\n"))
    }

    @Test("H5: locctl apps shows an administrator's setting of an app for every user in POLICY, \"-\" where none")
    func appsPolicy() throws {
        let text = AppsCommand.output(
            try Golden.reply("apps-people.json"),
            options: try OutputOptions.parse(["--no-legend"]),
            userName: Self.users
        )
        // POLICY is what follows SESSIONS and CLIENTS, the only two numbers side by side.
        var policies: [String] = []
        for line in text.split(separator: "\n") {
            let counts = try #require(line.range(of: #"\d+ +\d+ +"#, options: .regularExpression))
            policies.append(String(line[counts.upperBound...]))
        }
        #expect(
            policies == [
                "whileUsing max, approximate", "whileUsing max, approximate", "whileUsing max, approximate", "-",
                "precise", "never max", "-", "-",
            ]
        )
        #expect(AppsCommand.policy(.object([:])) == "-")
        #expect(AppsCommand.policy(.object(["policy": .object(["precise": .bool(false)])])) == "approximate")
    }

    @Test("H1: locctl apps --user lists only that user's apps, whatever their manifest")
    func appsOfOneUser() throws {
        let reply = try Golden.reply("apps-people.json")
        let json = AppsCommand.output(reply, options: try OutputOptions.parse(["--json"]), user: 65534)
        let listed = try #require(JSONValue.parse(Array(json.utf8))?.arrayValue)
        #expect(listed.compactMap { $0["appId"]?.stringValue } == ["com.ex.maps", "org.invented.Weather"])
        #expect(listed.allSatisfy { $0["user"] == .int(65534) })
        let root = AppsCommand.output(reply, options: try OutputOptions.parse(["--no-legend"]), user: 0)
        #expect(Self.column(0, of: root) == ["com.ex.maps"])
    }

    @Test(
        "H1, H2: locctl app ID shows your own app, --user another user's, and, where you have none, the installed entry with its users"
    )
    func appOfEachUser() throws {
        let apps = try Golden.reply("apps-people.json")
        let sessions = try Golden.reply("sessions-people.json")
        let mine = try #require(
            AppCommand.output("com.ex.maps", apps: apps, sessions: sessions, json: false, own: 0, userName: Self.users)
        )
        #expect(mine.contains("    User: root (0)\n"))
        #expect(mine.contains("   State: foreground (in use)\n"))
        #expect(mine.contains("  Policy: whileUsing max, approximate (an administrator's, for every user)\n"))
        #expect(mine.contains("s1-2 ") && !mine.contains("s1-5 "), "only the sessions of root's app:\n\(mine)")

        let theirs = try #require(
            AppCommand.output(
                "com.ex.maps",
                apps: apps,
                sessions: sessions,
                json: true,
                user: 65534,
                own: 0
            )
        )
        #expect(JSONValue.parse(Array(theirs.utf8))?["user"] == .int(65534))

        let installed = try #require(
            AppCommand.output(
                "com.ex.maps",
                apps: apps,
                sessions: sessions,
                json: false,
                own: 1000,
                userName: Self.users
            )
        )
        try Golden.check(installed, "app-people-installed.txt")
        #expect(installed.contains("   Users: root (0), nobody (65534)\n"))
        #expect(!installed.contains("SESSION"), "an entry of no user holds no session of its users")
        #expect(AppCommand.output("com.ex.maps", apps: apps, sessions: [:], json: false, user: 1000) == nil)
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

    @Test("H1: locctl sessions and session ID show the user whose app holds each session")
    func sessionsOfEveryUser() throws {
        let reply = try Golden.reply("sessions-people.json")
        let text = SessionsCommand.output(reply, options: try OutputOptions.parse([]), userName: Self.users)
        try Golden.check(text, "sessions-people.txt")
        let rows = SessionsCommand.output(
            reply,
            options: try OutputOptions.parse(["--no-legend"]),
            userName: Self.users
        )
        #expect(Self.column(2, of: rows) == ["root", "nobody", "-", "4242"])
        let detail = try #require(SessionCommand.output("s1-5", sessions: reply, json: false, userName: Self.users))
        #expect(detail.contains("   User: nobody (65534)\n"))
        let old = try #require(SessionCommand.output("s1-4", sessions: try Golden.reply("sessions.json"), json: false))
        #expect(!old.contains("User"))
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
            human +=
                try #require(WatchCommand.output(object, json: false, timeZone: Golden.utc, userName: Self.users))
                + "\n"
            let line = try #require(WatchCommand.output(object, json: true))
            #expect(JSONValue.parse(Array(line.utf8)) == object["event"])
            json += line + "\n"
        }
        try Golden.check(human, "watch.txt")
        try Golden.check(json, "watch.json.txt")
        #expect(WatchCommand.output([:], json: false) == nil)
    }

    @Test("H1: locctl watch names the user whose app an event is of, by name or uid, and none for an event of no app")
    func watchUsers() throws {
        let replies = try #require(try Golden.fixture("events.json").arrayValue)
        var lines: [String] = []
        for reply in replies {
            let object = try #require(reply.objectValue)
            lines.append(
                try #require(WatchCommand.output(object, json: false, timeZone: Golden.utc, userName: Self.users))
            )
        }
        #expect(lines[0].hasSuffix(" servicesChanged      - - off"))
        #expect(lines[1].hasSuffix(" sessionCreated       com.ex.maps[root] s1-2 explicit whenInUse"))
        #expect(lines[5].hasSuffix(" appStateChanged      com.ex.run[4242] - background"))
    }

    @Test("locctl agent: each kind of prompt with its usage description and numbered options")
    func agentPrompts() throws {
        let prompts = try #require(try Golden.fixture("prompts.json").arrayValue).compactMap { WirePrompt(json: $0) }
        #expect(prompts.count == 4)
        try Golden.check(
            prompts.map { AgentCommand.render($0, agentUser: 0, userName: Self.users) }.joined(separator: "\n"),
            "agent-prompts.txt"
        )
    }

    @Test("H7: locctl agent names the user of another user's app's prompt, and not the agent's own")
    func agentPromptUsers() throws {
        let prompts = try #require(try Golden.fixture("prompts.json").arrayValue).compactMap { WirePrompt(json: $0) }
        let rootsApp = AgentCommand.render(prompts[0], agentUser: 0, userName: Self.users)
        let nobodysApp = AgentCommand.render(prompts[3], agentUser: 0, userName: Self.users)
        #expect(!rootsApp.contains("for user"))
        #expect(nobodysApp.contains("\n  for user nobody (65534)\n  \"Records your run\"\n"), "\(nobodysApp)")
        #expect(!AgentCommand.render(prompts[3], agentUser: 65534, userName: Self.users).contains("for user"))
    }

    @Test("A3: locctl auth and location-button print the resulting record, or its JSON")
    func authorization() throws {
        let reply = try Golden.reply("authorization.json")
        let human = AuthCommand.output(reply, of: "com.ex.maps", json: false)
        #expect(human == "com.ex.maps: authorizedWhenInUse, Settings whileUsing, accuracy reduced\n")
        let json = AuthCommand.output(reply, of: "com.ex.maps", json: true)
        #expect(JSONValue.parse(Array(json.utf8)) == reply["authorization"])
    }

    @Test(
        "H5: locctl auth by an administrator without --user says the setting is for every user and a ceiling; with --user, whose app"
    )
    func authorizationOfEveryUser() throws {
        let reply = try Golden.reply("authorization.json")
        let record = "com.ex.maps: authorizedWhenInUse, Settings whileUsing, accuracy reduced\n"
        let everyone = AuthCommand.output(reply, of: "com.ex.maps", json: false, reach: .everyone, setting: .whileUsing)
        #expect(everyone == record + "  for every user; users may choose only a stricter setting\n")
        let askAgain = AuthCommand.output(
            reply,
            of: "com.ex.maps",
            json: false,
            reach: .everyone,
            setting: .askNextTime
        )
        #expect(askAgain == record + "  for every user; each user's app asks again, and its user decides\n")
        let accuracyOnly = AuthCommand.output(reply, of: "com.ex.maps", json: false, reach: .everyone)
        #expect(accuracyOnly.hasSuffix("users may choose only a stricter setting\n"))
        let one = AuthCommand.output(reply, of: "com.ex.maps", json: false, reach: .user(65534), userName: Self.users)
        #expect(
            one == "com.ex.maps of user nobody (65534): authorizedWhenInUse, Settings whileUsing, accuracy reduced\n"
        )
        let json = AuthCommand.output(reply, of: "com.ex.maps", json: true, reach: .everyone, setting: .never)
        #expect(JSONValue.parse(Array(json.utf8)) == reply["authorization"])
    }

    @Test(
        "H4, H6: locctl status of an ordinary user: the switch on but off for them, their own apps, no provider place"
    )
    func statusOfOrdinaryUser() throws {
        let reply = try Golden.reply("status-user.json")
        let text = try #require(StatusCommand.output(reply, json: false, now: now, timeZone: Golden.utc))
        try Golden.check(text, "status-user.txt")
        #expect(text.contains("Location services: on (off for you)\n"))
        #expect(text.contains("Your apps using location: com.ex.maps\n"))
        #expect(text.contains("Last fix: 02:23:05.000 (25.0 s ago)\n"), "the time of the last fix, not its place")
        #expect(!text.contains(" from "))
        let json = try #require(StatusCommand.output(reply, json: true, now: now))
        #expect(JSONValue.parse(Array(json.utf8)) == reply["status"])
    }

    @Test("H6: the location-services line: the machine's switch, and an ordinary user's own beside it")
    func servicesLine() {
        func line(_ machine: Bool, _ own: Bool?) -> String {
            var status: JSONObject = ["locationServicesEnabled": .bool(machine)]
            if let own {
                status["administrator"] = .bool(false)
                status["locationServicesEnabledForUser"] = .bool(own)
            } else {
                status["administrator"] = .bool(true)
            }
            return StatusCommand.services(.object(status))
        }
        #expect(line(true, nil) == "on")
        #expect(line(false, nil) == "off")
        #expect(line(true, true) == "on")
        #expect(line(true, false) == "on (off for you)")
        #expect(line(false, true) == "off (for the machine)")
        #expect(line(false, false) == "off (for the machine, and for you)")
        let painted = StatusCommand.services(
            .object(["locationServicesEnabled": .bool(true), "locationServicesEnabledForUser": .bool(false)]),
            style: Style(colors: true)
        )
        #expect(painted == "\u{1B}[32mon\u{1B}[0m (\u{1B}[31moff for you\u{1B}[0m)")
    }

    @Test(
        "H6: locctl services as an ordinary user says the switch it moved is theirs alone; an administrator's says nothing"
    )
    func servicesSummary() {
        func status(administrator: Bool, machine: Bool = true) -> JSONObject {
            ["status": .object(["administrator": .bool(administrator), "locationServicesEnabled": .bool(machine)])]
        }
        #expect(ServicesCommand.summary(.off, status: status(administrator: true)) == nil)
        #expect(ServicesCommand.summary(.on, status: status(administrator: true)) == nil)
        #expect(ServicesCommand.summary(.off, status: ["status": .object([:])]) == nil, "a locd from before H4")
        #expect(
            ServicesCommand.summary(.off, status: status(administrator: false))
                == "Location services are off for you only; an administrator turns them off for the machine."
        )
        #expect(
            ServicesCommand.summary(.on, status: status(administrator: false)) == "Location services are on for you."
        )
        #expect(
            ServicesCommand.summary(.on, status: status(administrator: false, machine: false))
                == "Location services are on for you, but an administrator turned them off for the machine."
        )
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
