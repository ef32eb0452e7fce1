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

    @Test("L13, N7: locctl status shows each desktop source, and says plainly why one cannot be read")
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
