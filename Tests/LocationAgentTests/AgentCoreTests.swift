import JSON
import LocationTestSupport
import Testing

@testable import LocationAgent

/// locd-agent's decisions on their own (SEMANTICS §16): events in, actions out, no bus and no daemon.
@Suite("locd-agent: the core")
struct AgentCoreTests {
    private static let maps = AppLook(name: "Maps", icon: "org.example.Maps", desktopEntry: "org.example.Maps")

    private static func prompt(
        _ id: String = "p1",
        kind: String = "authorization",
        options: [String] = ["allowWhileUsing", "allowOnce", "deny"],
        toggle: Bool = true,
        precise: Bool = true,
        brokered: Bool = false
    ) -> Prompt {
        Prompt(
            id: id,
            appID: "org.example.Maps",
            kind: kind,
            usageDescription: "Shows you <on> the map",
            options: options,
            accuracyToggle: toggle,
            preciseByDefault: precise,
            brokered: brokered
        )
    }

    /// A core whose server shows actions (and markup when asked), with its stream open.
    private static func connected(capabilities: [String] = ["actions", "body"], terminal: Bool = false) -> AgentCore {
        var core = AgentCore(opensTerminal: terminal)
        _ = core.start()
        _ = core.capabilitiesKnown(capabilities)
        return core
    }

    /// The notification of the first `.notify` in `actions`.
    private static func notification(in actions: [AgentCore.Action]) -> Notification? {
        for case .notify(let notification, _) in actions { return notification }
        return nil
    }

    /// A core showing prompt `p1` as notification 7.
    private static func showing(_ prompt: Prompt = AgentCoreTests.prompt()) -> AgentCore {
        var core = connected()
        _ = core.promptReceived(prompt, app: maps)
        _ = core.notificationShown(7, for: prompt.id)
        return core
    }

    @Test("N2: each prompt kind's summary, body and actions are in the seeds' words, with the app's name and icon")
    func wordsOfEveryKind() throws {
        let kinds: [(String, [String], String, [String])] = [
            (
                "authorization", ["allowWhileUsing", "allowOnce", "deny"], "Allow “Maps” to use your location?",
                ["Allow Once", "Allow While Using App", "Don't Allow", "Precise: On"]
            ),
            (
                "alwaysUpgrade", ["keepWhileUsing", "changeToAlways"],
                "Allow “Maps” to also use your location even when you are not using the app?",
                ["Keep Only While Using", "Change to Always Allow"]
            ),
            (
                "temporaryFullAccuracy", ["allow", "deny"], "“Maps” would like to use your precise location",
                ["Allow", "Don't Allow"]
            ),
            (
                "alwaysReconfirm", ["keepAlways", "changeToWhileUsing"],
                "“Maps” has been using your location in the background. Do you want to continue to allow this?",
                ["Keep Always Allow", "Change to While Using"]
            ),
        ]
        for (kind, options, summary, labels) in kinds {
            var core = Self.connected()
            let prompt = Self.prompt(kind: kind, options: options, toggle: kind == "authorization")
            let actions = core.promptReceived(prompt, app: Self.maps)
            let shown = try #require(Self.notification(in: actions))
            #expect(shown.summary == summary)
            #expect(shown.body == "Shows you <on> the map")
            #expect(shown.actions.map(\.label) == labels, "\(kind)")
            #expect(Set(shown.actions.map(\.key)).isSuperset(of: options))
            #expect(shown.appIcon == "org.example.Maps" && shown.imagePath == "org.example.Maps")
            #expect(shown.desktopEntry == "org.example.Maps")
            #expect(shown.urgency == 2 && shown.resident && shown.expireTimeout == 0 && shown.replacesID == 0)
        }
    }

    @Test("N2: the app's words are escaped where the server reads markup")
    func markupEscaped() throws {
        var core = Self.connected(capabilities: ["actions", "body", "body-markup"])
        let shown = try #require(Self.notification(in: core.promptReceived(Self.prompt(), app: Self.maps)))
        #expect(shown.body == "Shows you &lt;on&gt; the map")
    }

    @Test("N2: the accuracy toggle shows the same notification again in place with the other label")
    func toggleReplaces() throws {
        var core = Self.showing()
        let flipped = try #require(Self.notification(in: core.actionInvoked(Notification.accuracyToggleKey, on: 7)))
        #expect(flipped.replacesID == 7)
        #expect(flipped.actions.last == Notification.Action(key: "toggleAccuracy", label: "Precise: Off"))
        let back = try #require(Self.notification(in: core.actionInvoked(Notification.accuracyToggleKey, on: 7)))
        #expect(back.actions.last?.label == "Precise: On")
    }

    @Test("N2, N3: an answer carries the accuracy shown; without the toggle it carries none")
    func answerCarriesAccuracy() {
        var core = Self.showing()
        #expect(
            core.actionInvoked("allowWhileUsing", on: 7) == [
                .answer(prompt: "p1", answer: "allowWhileUsing", accuracy: "full")
            ]
        )
        _ = core.actionInvoked(Notification.accuracyToggleKey, on: 7)
        #expect(
            core.actionInvoked("allowOnce", on: 7) == [.answer(prompt: "p1", answer: "allowOnce", accuracy: "reduced")]
        )
        var reduced = Self.showing(Self.prompt(precise: false))
        #expect(reduced.actionInvoked("deny", on: 7) == [.answer(prompt: "p1", answer: "deny", accuracy: "reduced")])
        var upgrade = Self.showing(
            Self.prompt(kind: "alwaysUpgrade", options: ["keepWhileUsing", "changeToAlways"], toggle: false)
        )
        #expect(
            upgrade.actionInvoked("changeToAlways", on: 7) == [
                .answer(prompt: "p1", answer: "changeToAlways", accuracy: nil)
            ]
        )
        // An action the prompt does not offer (a click on the body: "default") answers nothing.
        #expect(upgrade.actionInvoked("default", on: 7).isEmpty)
        #expect(upgrade.actionInvoked("allowOnce", on: 7).isEmpty)
    }

    @Test("N3: a withdrawn prompt closes its notification; one withdrawn before it showed closes as it shows")
    func withdrawnCloses() {
        var core = Self.showing()
        #expect(core.promptWithdrawn("p1") == [.closeNotification(7)])
        #expect(core.promptWithdrawn("p1").isEmpty)
        _ = core.promptReceived(Self.prompt("p2"), app: Self.maps)
        _ = core.promptWithdrawn("p2")
        #expect(core.notificationShown(9, for: "p2") == [.closeNotification(9)])
    }

    @Test("N3: a notification the person closes answers nothing, and its later withdrawal closes nothing")
    func closedByPerson() {
        var core = Self.showing()
        let actions = core.notificationClosed(7)
        #expect(!actions.contains { if case .answer = $0 { true } else { false } })
        #expect(core.actionInvoked("deny", on: 7).isEmpty)
        #expect(core.promptWithdrawn("p1").isEmpty)
    }

    @Test("N3: NoSuchPrompt is the person's too late; nothing follows but a line in the log")
    func tooLate() {
        var core = Self.showing()
        let actions = core.answerRefused("p1", error: "io.locd.Admin.NoSuchPrompt")
        #expect(actions.count == 1)
        guard case .log(.info, _) = actions.first else {
            Issue.record("expected one info line, got \(actions)")
            return
        }
    }

    @Test(
        "N3, N1: when locd ends the stream every notification closes, and the stream opens again after 1 s doubling to 60 s"
    )
    func streamLost() {
        var core = Self.showing()
        _ = core.promptReceived(Self.prompt("p2"), app: Self.maps)
        _ = core.notificationShown(8, for: "p2")
        let lost = core.streamLost("locd ended the prompt stream")
        #expect(
            lost.filter { if case .closeNotification = $0 { true } else { false } } == [
                .closeNotification(7), .closeNotification(8),
            ]
        )
        #expect(lost.last == .scheduleRetry(seconds: 1))
        var waits: [Double] = []
        for _ in 0..<8 {
            #expect(core.retryDue() == [.openStream])
            for case .scheduleRetry(let seconds) in core.streamLost("cannot reach locd") { waits.append(seconds) }
        }
        #expect(waits == [2, 4, 8, 16, 32, 60, 60, 60])
        // A prompt received starts the doubling over.
        _ = core.retryDue()
        _ = core.promptReceived(Self.prompt("p3"), app: Self.maps)
        #expect(core.streamLost("locd ended the prompt stream").last == .scheduleRetry(seconds: 1))
        // The same prompt sent again after the stream reopens is shown again.
        _ = core.retryDue()
        #expect(Self.notification(in: core.promptReceived(Self.prompt("p1"), app: Self.maps)) != nil)
    }

    @Test(
        """
        N3: an answer's reply is an event: taken, it is logged and the notification waits for the withdrawal; refused \
        or broken, it is logged and the notification stays to be chosen again
        """
    )
    func answerReplies() {
        var core = Self.showing()
        _ = core.actionInvoked("allowWhileUsing", on: 7)
        #expect(core.answering == [AgentCore.Answering(prompt: "p1", answer: "allowWhileUsing", accuracy: "full")])
        #expect(core.answerTaken("p1") == [.log(.info, "answered prompt p1: allowWhileUsing (full)")])
        #expect(core.answering.isEmpty && core.shown.first?.notification == 7)
        _ = core.actionInvoked("deny", on: 7)
        let failed = core.answerFailed("p1", reason: "the connection to locd broke")
        #expect(failed == [.log(.warning, "cannot answer prompt p1: the connection to locd broke")])
        _ = core.actionInvoked("deny", on: 7)
        #expect(core.answerRefused("p1", error: "io.locd.Admin.Denied").count == 1)
        // Nothing closes: the notification is still the person's to choose from.
        #expect(core.answering.isEmpty && core.shown.first?.notification == 7)
        #expect(core.actionInvoked("deny", on: 7) == [.answer(prompt: "p1", answer: "deny", accuracy: "full")])
    }

    @Test("N3: at most 16 answers wait for locd's replies; a choice beyond them is logged and not sent")
    func answersWaitingBounded() {
        var core = Self.showing()
        for _ in 0..<AgentCore.mostAnswersWaiting {
            #expect(
                core.actionInvoked("allowOnce", on: 7) == [.answer(prompt: "p1", answer: "allowOnce", accuracy: "full")]
            )
        }
        let beyond = core.actionInvoked("allowOnce", on: 7)
        #expect(beyond.count == 1)
        guard case .log(.warning, let line) = beyond.first else {
            Issue.record("expected one warning, got \(beyond)")
            return
        }
        #expect(line.contains("not sent"))
        // One reply frees one place.
        _ = core.answerRefused("p1", error: "io.locd.Admin.NoSuchPrompt")
        #expect(core.actionInvoked("deny", on: 7) == [.answer(prompt: "p1", answer: "deny", accuracy: "full")])
    }

    @Test(
        "N4: a server without actions gets one notice and one log line naming locctl agent, and each prompt says how to answer"
    )
    func noActions() throws {
        var core = AgentCore(opensTerminal: true)
        _ = core.start()
        let first = core.capabilitiesKnown(["body"])
        let notice = try #require(Self.notification(in: first))
        #expect(notice.body.contains("locctl agent") && notice.actions.isEmpty)
        #expect(
            first.filter { if case .log(.warning, let text) = $0 { text.contains("locctl agent") } else { false } }
                .count == 1
        )
        #expect(first.contains(.openStream))
        let prompted = core.promptReceived(Self.prompt(), app: Self.maps)
        let shown = try #require(Self.notification(in: prompted))
        #expect(
            shown.actions.isEmpty && shown.body.hasPrefix("Shows you <on> the map")
                && shown.body.contains("locctl agent")
        )
        #expect(prompted.contains(.openTerminal))
        // The terminal opens the first time only; the notice is not repeated for the same server.
        #expect(!core.promptReceived(Self.prompt("p2"), app: Self.maps).contains(.openTerminal))
        #expect(Self.notification(in: core.capabilitiesKnown(["body"])) == nil)
        var plain = AgentCore()
        _ = plain.capabilitiesKnown(["body"])
        #expect(!plain.promptReceived(Self.prompt(), app: Self.maps).contains(.openTerminal))
    }

    @Test("N4: with no notification server no prompt stream is open; one opens once a server appears")
    func noServer() {
        var core = AgentCore()
        #expect(core.start() == [.queryDesktopDialog, .queryCapabilities, .queryTray, .openWatch])
        let none = core.capabilitiesKnown(nil)
        #expect(!none.contains(.openStream) && core.stream == .closed)
        #expect(none.contains { if case .log(.warning, _) = $0 { true } else { false } })
        #expect(core.serverAppeared() == [.queryCapabilities])
        #expect(core.capabilitiesKnown(["actions"]).contains(.openStream))
        // The server leaves: the stream closes, and a retry due meanwhile does not reopen it.
        _ = core.promptReceived(Self.prompt(), app: Self.maps)
        #expect(core.serverVanished().contains(.closeStream))
        #expect(core.retryDue().isEmpty)
        #expect(core.promptReceived(Self.prompt("p2"), app: Self.maps).isEmpty)
    }

    @Test("N4: a server that D-Bus activation started for GetCapabilities keeps its prompts when it announces itself")
    func activatedServer() {
        var core = AgentCore()
        _ = core.start()
        // GetCapabilities started dunst and its answer came before the NameOwnerChanged that says dunst took the name.
        #expect(core.capabilitiesKnown(["actions"]).contains(.openStream))
        let shown = core.promptReceived(Self.prompt(), app: Self.maps)
        #expect(Self.notification(in: shown) != nil)
        let announced = core.serverAppeared(replacing: false)
        #expect(announced == [.queryCapabilities])
        #expect(core.stream == .open)
        // Its capabilities again: the prompt is not shown twice, and the stream stays open.
        let again = core.capabilitiesKnown(["actions"])
        #expect(!again.contains(.openStream) && Self.notification(in: again) == nil)
        // Another server taking the name over is a new server: the old one's notifications are gone.
        #expect(core.serverAppeared(replacing: true).contains(.closeStream))
    }

    @Test("N2: the name and icon come from APPID.desktop, XDG_DATA_HOME first; the app id when there is none")
    func desktopLook() throws {
        let directory = try TemporaryDirectory(prefix: "agent-look")
        defer { directory.remove() }
        try directory.write(
            "home/applications/org.example.Maps.desktop",
            "[Desktop Entry]\nName=My Maps\nIcon=maps-home\n"
        )
        try directory.write("shared/applications/org.example.Maps.desktop", "[Desktop Entry]\nName=Maps\nIcon=maps\n")
        try directory.write("shared/applications/org.example.Notes.desktop", "[Desktop Entry]\nName=Notes\n")
        let directories = AppLook.applicationDirectories(environment: [
            "XDG_DATA_HOME": directory.at("home"), "XDG_DATA_DIRS": directory.at("shared") + ":relative",
        ])
        #expect(directories == [directory.at("home/applications"), directory.at("shared/applications")])
        #expect(
            AppLook(appID: "org.example.Maps", directories: directories)
                == AppLook(name: "My Maps", icon: "maps-home", desktopEntry: "org.example.Maps")
        )
        #expect(AppLook(appID: "org.example.Notes", directories: directories).icon == nil)
        #expect(AppLook(appID: "com.ex.none", directories: directories).name == "com.ex.none")
        #expect(AppLook(appID: "../shared/applications/org.example.Maps", directories: directories).desktopEntry == nil)
        #expect(
            AppLook.applicationDirectories(environment: ["HOME": "/home/a"]) == [
                "/home/a/.local/share/applications", "/usr/local/share/applications", "/usr/share/applications",
            ]
        )
    }
}

/// A desktop that asks GeoClue clients in dialogs of its own (SEMANTICS N6).
extension AgentCoreTests {
    /// A connected core that knows GNOME Shell runs.
    private static func beside(shell: Bool = true) -> AgentCore {
        var core = connected()
        _ = core.desktopDialogChanged(present: shell)
        return core
    }

    private static func notifications(in actions: [AgentCore.Action]) -> [String?] {
        actions.compactMap { if case .notify(_, let prompt) = $0 { prompt } else { nil } }
    }

    @Test("N6: the agent learns whether GNOME Shell runs before it asks locd for prompts")
    func asksForTheShellFirst() {
        var core = AgentCore()
        #expect(core.start().first == .queryDesktopDialog)
        #expect(core.desktopDialogChanged(present: true).count == 1)
        #expect(core.desktopAsks)
        // The same news twice (NameHasOwner, then NameOwnerChanged) says nothing new.
        #expect(core.desktopDialogChanged(present: true).isEmpty)
    }

    @Test("N6: beside GNOME Shell a brokered authorization prompt shows no notification; the log says its dialog asks")
    func brokeredAuthorizationLeftToTheShell() {
        var core = Self.beside()
        let actions = core.promptReceived(Self.prompt(brokered: true), app: Self.maps)
        #expect(Self.notifications(in: actions).isEmpty)
        #expect(actions.count == 1)
        guard case .log(.info, let text) = actions.first else {
            Issue.record("expected one info line, got \(actions)")
            return
        }
        #expect(text.contains("GNOME Shell") && text.contains("p1"), "\(text)")
        // Withdrawn (GNOME Shell's answer reached locd): nothing to close.
        #expect(core.promptWithdrawn("p1").isEmpty)
    }

    @Test("N6: beside GNOME Shell every other prompt is shown: not brokered, or brokered of another kind")
    func otherPromptsShownBesideTheShell() {
        var core = Self.beside()
        #expect(Self.notifications(in: core.promptReceived(Self.prompt("p1"), app: Self.maps)) == ["p1"])
        let others = [
            ("p2", "temporaryFullAccuracy", ["allow", "deny"]),
            ("p3", "alwaysUpgrade", ["keepWhileUsing", "changeToAlways"]),
            ("p4", "alwaysReconfirm", ["keepAlways", "changeToWhileUsing"]),
        ]
        for (id, kind, options) in others {
            let prompt = Self.prompt(id, kind: kind, options: options, toggle: false, brokered: true)
            #expect(Self.notifications(in: core.promptReceived(prompt, app: Self.maps)) == [id], "\(kind)")
        }
    }

    @Test("N6: without GNOME Shell a brokered authorization prompt is shown like any other")
    func brokeredShownWithoutTheShell() {
        var core = Self.beside(shell: false)
        #expect(Self.notifications(in: core.promptReceived(Self.prompt(brokered: true), app: Self.maps)) == ["p1"])
    }

    @Test("N6: GNOME Shell starting closes the notification of a brokered authorization prompt, and only that one")
    func shellAppearingCloses() {
        var core = Self.showing(Self.prompt(brokered: true))
        _ = core.promptReceived(Self.prompt("p2"), app: Self.maps)
        _ = core.notificationShown(8, for: "p2")
        let actions = core.desktopDialogChanged(present: true)
        #expect(actions.filter { if case .closeNotification = $0 { true } else { false } } == [.closeNotification(7)])
        #expect(Self.notifications(in: actions).isEmpty)
        // Its notification is gone: the server's NotificationClosed and locd's withdrawal close nothing more.
        #expect(core.notificationClosed(7).isEmpty)
        #expect(core.promptWithdrawn("p1").isEmpty)
        #expect(core.promptWithdrawn("p2") == [.closeNotification(8)])
    }

    @Test("N6: GNOME Shell leaving shows the brokered authorization prompts left to it, which can then be answered")
    func shellLeavingShows() throws {
        var core = Self.beside()
        _ = core.promptReceived(Self.prompt(brokered: true), app: Self.maps)
        _ = core.promptReceived(Self.prompt("p2"), app: Self.maps)
        _ = core.notificationShown(8, for: "p2")
        let actions = core.desktopDialogChanged(present: false)
        #expect(Self.notifications(in: actions) == ["p1"])
        let shown = try #require(Self.notification(in: actions))
        #expect(shown.actions.map(\.key).contains("allowWhileUsing"))
        _ = core.notificationShown(9, for: "p1")
        #expect(
            core.actionInvoked("allowWhileUsing", on: 9) == [
                .answer(prompt: "p1", answer: "allowWhileUsing", accuracy: "full")
            ]
        )
    }

    @Test("N6: a notification shown just as GNOME Shell starts closes as it shows")
    func shownAsTheShellStarts() {
        var core = Self.connected()
        _ = core.promptReceived(Self.prompt(brokered: true), app: Self.maps)
        _ = core.desktopDialogChanged(present: true)
        #expect(core.notificationShown(7, for: "p1") == [.closeNotification(7)])
    }

    @Test("N6: a prompt says brokered when locd sends brokered true; absent, it is not")
    func brokeredParsed() throws {
        let prompt = { (extra: String) in
            JSONValue.parse(Array(#"{"id": "p1", "appId": "org.example.Maps", "kind": "authorization"\#(extra)}"#.utf8))
                .flatMap(Prompt.init)
        }
        #expect(try #require(prompt("")).brokered == false)
        #expect(try #require(prompt(#", "brokered": true"#)).brokered)
    }
}
