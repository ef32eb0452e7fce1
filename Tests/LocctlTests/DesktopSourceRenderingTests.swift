import JSON
import Testing

@testable import LocctlCommands

/// L13: `locctl apps` and `locctl status` say which desktop decided an app's state, and one that cannot be read.
@Suite("locctl shows the desktop that decides")
struct DesktopSourceRenderingTests {
    @Test("L13: locctl apps names the desktop that decided a state; a state the app said itself shows alone")
    func appsNameTheDesktop() {
        let decided: JSONValue = .object([
            "appId": .string("com.ex.maps"), "state": .string("background"), "stateSource": .string("sway"),
        ])
        let own: JSONValue = .object([
            "appId": .string("com.ex.run"), "state": .string("foreground"), "stateSource": .string("app"),
        ])
        let table = AppsCommand.render(.array([decided, own]), legend: false, userName: { _ in "alice" })
        #expect(table.contains("background (sway)"), "\(table)")
        #expect(table.contains("foreground ") && !table.contains("foreground (app)"), "\(table)")
    }

    @Test("L13: locctl session shows its app's state beside the diagnostic, and which desktop decided it")
    func sessionNamesTheDesktop() throws {
        func session(_ id: String, user: Int64) -> JSONValue {
            .object([
                "id": .string(id), "appId": .string("com.ex.maps"), "kind": .string("explicit"),
                "authorization": .string("whenInUse"), "state": .string("limited"), "user": .int(user),
                "diagnostic": .object(["flags": .array([.string("insufficientlyInUse")]), "mask": .int(16)]),
            ])
        }
        func app(user: Int64, state: String, source: String) -> JSONValue {
            .object([
                "appId": .string("com.ex.maps"), "user": .int(user), "state": .string(state),
                "stateSource": .string(source),
            ])
        }
        let sessions: JSONObject = ["sessions": .array([session("s1-1", user: 61_011), session("s1-2", user: 61_012)])]
        // The same app id is two users' apps (H1): each session shows its own user's.
        let apps: JSONObject = [
            "apps": .array([
                app(user: 61_012, state: "foreground", source: "app"),
                app(user: 61_011, state: "background", source: "sw\u{1b}[2Jay"),
            ])
        ]
        let alice = try #require(SessionCommand.output("s1-1", sessions: sessions, apps: apps, json: false))
        #expect(alice.contains("App state: background, decided by sw"), "\(alice)")
        #expect(alice.contains("insufficientlyInUse") && !alice.contains("\u{1b}"), "I16: \(alice)")
        let bob = try #require(SessionCommand.output("s1-2", sessions: sessions, apps: apps, json: false))
        #expect(bob.contains("App state: foreground, the app's own word\n"), "\(bob)")
        let json = try #require(SessionCommand.output("s1-1", sessions: sessions, apps: apps, json: true))
        #expect(!json.contains("App state") && !json.contains("stateSource"), "--json is the Session object")
    }

    @Test("L13, N15: locctl status shows each desktop source, and says plainly why one cannot be read")
    func statusShowsTheSources() {
        let status: JSONValue = .object([
            "desktops": .array([
                .object([
                    "desktop": .string("sway"), "user": .int(61_011), "reading": .bool(true), "locked": .bool(false),
                ]),
                .object([
                    "desktop": .string("x11"), "user": .int(61_012), "reading": .bool(false), "locked": .bool(false),
                    "failure": .string("cannot open the display :9"),
                ]),
            ])
        ])
        let text = StatusCommand.render(status, now: 1_763_778_210)
        #expect(text.contains("sway of uid 61011 decides what is in front"), "\(text)")
        #expect(text.contains("x11 of uid 61012: cannot be read: cannot open the display :9"), "\(text)")
    }
}
