import Foundation
import JSON
import LocationProtocol
import Testing
import Varlink

@testable import LocctlCommands

/// I16: what locctl's text outputs show of an app id, a usage description or a reason that carries terminal
/// escapes, a line break or a bidi override (an id a store from before I15 may hold, a description from a manifest).
@Suite("locctl shows app text escaped")
struct HostileTextTests {
    /// Clears the screen, sets the terminal's title, moves up and erases a line, then forges a row after a line
    /// break; and a right-to-left override.
    static let hostile = "com.ex.x\u{1B}[2J\u{1B}]0;owned\u{07}\u{1B}[1A\u{1B}[2K\ncom.ex.forged\u{202E}  root"
    static let shown = "com.ex.x\\u{1b}[2J\\u{1b}]0;owned\\u{7}\\u{1b}[1A\\u{1b}[2K\\u{a}com.ex.forged\\u{202e}  root"

    /// Whether `text` holds a control or bidi character that a terminal would obey, other than locctl's own line
    /// breaks.
    private func obeys(_ text: String) -> Bool {
        text.unicodeScalars.contains { scalar in
            scalar != "\n" && (scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar == "\u{202E}")
        }
    }

    @Test("I16: locctl agent shows a prompt's hostile app id and usage description escaped")
    func agentPrompt() throws {
        let prompt: JSONValue = .object([
            "id": .string("p1-1"), "appId": .string(Self.hostile), "kind": .string("authorization"),
            "usageDescription": .string("Shows you\u{1B}[2J on the map\nAllow Always? [y]"),
            "options": .array([.string("allowWhileUsing"), .string("deny")]), "user": .int(0),
        ])
        let text = AgentCommand.render(
            try #require(WirePrompt(json: prompt)),
            agentUser: 0,
            userName: { _ in "root" }
        )
        #expect(!obeys(text), "\(text.debugDescription)")
        #expect(text.contains(Self.shown), "\(text)")
        #expect(text.contains("Shows you\\u{1b}[2J on the map\\u{a}Allow Always? [y]"), "\(text)")
    }

    @Test("I16: locctl apps, watch, sessions and status show a hostile app id escaped, one row per app")
    func tablesAndLines() throws {
        let app: JSONValue = .object([
            "appId": .string(Self.hostile), "user": .int(0), "state": .string("foreground"),
            "authorization": .object(["status": .string("authorizedAlways"), "settingsLabel": .string("always")]),
        ])
        let apps = AppsCommand.render(.array([app]), legend: false, userName: { _ in "root" })
        #expect(!obeys(apps) && apps.contains(Self.shown), "\(apps.debugDescription)")
        #expect(apps.split(separator: "\n").count == 1, "\(apps)")

        let event: JSONValue = .object([
            "kind": .string("appStateChanged"), "appId": .string(Self.hostile), "timestamp": .double(1_763_778_200),
        ])
        let line = WatchCommand.render(event, userName: { _ in "root" })
        #expect(!obeys(line) && line.contains(Self.shown), "\(line.debugDescription)")

        let session: JSONValue = .object([
            "id": .string("s1-1"), "appId": .string(Self.hostile), "kind": .string("explicit"),
            "state": .string("active"),
        ])
        let sessions = SessionsCommand.render(.array([session]), legend: false, userName: { _ in "root" })
        #expect(!obeys(sessions) && sessions.contains(Self.shown), "\(sessions.debugDescription)")

        let status: JSONValue = .object(["appsUsingLocation": .array([.string(Self.hostile)])])
        let summary = StatusCommand.render(status, now: 1_763_778_210)
        #expect(!obeys(summary) && summary.contains(Self.shown), "\(summary.debugDescription)")
    }
}
