import Testing

@testable import LocationAgent

/// What locd-agent shows of the apps using location (SEMANTICS N5), decided by the core alone: events in, actions
/// out, no bus and no daemon.
@Suite("locd-agent: the apps using location")
struct AgentIndicatorTests {
    private static let maps = LocationUse.App(name: "Maps", inBackground: false)
    private static let run = LocationUse.App(name: "Run", inBackground: true)

    /// A core whose notification server shows actions, whose tray is `tray`, with `Watch` open and no app using
    /// location, as its first `Status` read said.
    private static func watching(tray: Bool = false, capabilities: [String] = ["actions", "body"]) -> AgentCore {
        var core = AgentCore()
        _ = core.start()
        _ = core.capabilitiesKnown(capabilities)
        _ = core.trayKnown(present: tray)
        _ = core.watchOpened()
        _ = core.statusRead(.none)
        return core
    }

    /// The actions of `Status` answering `apps`, after an event that asked for it.
    private static func read(_ core: inout AgentCore, _ apps: [LocationUse.App], more: Int = 0) -> [AgentCore.Action] {
        _ = core.watchEvent()
        return core.statusRead(LocationUse(apps: apps, more: more))
    }

    /// The resident notification of `actions`, if one is shown.
    private static func notification(in actions: [AgentCore.Action]) -> Notification? {
        for case .notifyInUse(let notification) in actions { return notification }
        return nil
    }

    /// A core showing Maps in use in notification 5.
    private static func showingMaps() -> AgentCore {
        var core = watching()
        _ = read(&core, [maps])
        _ = core.inUseNotificationShown(5)
        return core
    }

    @Test("N5: the agent watches locd's events from the start, and reads Status as soon as Watch is open")
    func watchesFromTheStart() {
        var core = AgentCore()
        #expect(core.start() == [.queryDesktopDialog, .queryCapabilities, .queryTray, .openWatch])
        #expect(core.watchOpened() == [.readStatus])
    }

    @Test("N5: nothing in use shows nothing: no notification, and the tray item stays Passive")
    func nothingInUse() {
        var notified = Self.watching()
        #expect(Self.read(&notified, []).isEmpty)
        var tray = Self.watching(tray: true)
        #expect(Self.read(&tray, []).isEmpty)
        #expect(tray.indicator.trayLook.status == "Passive")
    }

    @Test("N5: one app in use makes the tray item Active with the app in its tooltip")
    func oneAppInTheTray() {
        var core = Self.watching(tray: true)
        let actions = Self.read(&core, [Self.maps])
        #expect(actions.contains(.showTray(Indicator.TrayLook(LocationUse(apps: [Self.maps], more: 0)))))
        #expect(core.indicator.trayLook.status == "Active" && core.indicator.trayLook.text == "Maps")
        #expect(Self.notification(in: actions) == nil)
    }

    @Test("N5: one app in use without a tray is one low resident notification that never expires, with Settings")
    func oneAppNotified() throws {
        var core = Self.watching()
        let shown = try #require(Self.notification(in: Self.read(&core, [Self.maps])))
        #expect(shown.summary == "“Maps” is using your location")
        #expect(shown.body == "Maps")
        #expect(shown.urgency == 0 && shown.resident && shown.expireTimeout == 0 && shown.replacesID == 0)
        #expect(shown.actions == [Notification.Action(key: "settings", label: "Settings")])
    }

    @Test("N5: an app in the background makes the tray item NeedsAttention and the notification say so")
    func background() throws {
        var tray = Self.watching(tray: true)
        _ = Self.read(&tray, [Self.run])
        #expect(tray.indicator.trayLook.status == "NeedsAttention")
        #expect(tray.indicator.trayLook.text == "Run (in the background)")
        var core = Self.watching()
        let alone = try #require(Self.notification(in: Self.read(&core, [Self.run])))
        #expect(alone.summary == "“Run” is using your location in the background")
        let both = try #require(Self.notification(in: Self.read(&core, [Self.maps, Self.run])))
        #expect(both.summary == "2 apps are using your location")
        #expect(both.body == "Maps\nRun (in the background)")
    }

    @Test("N5: a changed list replaces the notification in place; the same list read again sends nothing")
    func replacedInPlace() throws {
        var core = Self.showingMaps()
        #expect(Self.read(&core, [Self.maps]).isEmpty)
        let changed = try #require(Self.notification(in: Self.read(&core, [Self.maps, Self.run])))
        #expect(changed.replacesID == 5)
    }

    @Test("N5: no app in use again closes the notification, and makes the tray item Passive")
    func closedWhenUnused() {
        var core = Self.showingMaps()
        #expect(Self.read(&core, []) == [.showTray(Indicator.TrayLook(.none)), .closeNotification(5)])
        var tray = Self.watching(tray: true)
        _ = Self.read(&tray, [Self.maps])
        #expect(Self.read(&tray, []) == [.showTray(Indicator.TrayLook(.none))])
        #expect(tray.indicator.trayLook.status == "Passive")
    }

    @Test("N5: one Status read at a time; events during it make exactly one more read")
    func coalesced() {
        var core = Self.watching()
        #expect(core.watchEvent() == [.readStatus])
        #expect(core.watchEvent().isEmpty)
        #expect(core.watchEvent().isEmpty)
        #expect(core.statusRead(.none) == [.readStatus])
        #expect(core.watchEvent().isEmpty)
        #expect(core.statusRead(.none) == [.readStatus])
        #expect(core.statusRead(.none).isEmpty)
        #expect(core.watchEvent() == [.readStatus])
    }

    @Test("N5: a tray appearing takes over from the notification, and its going brings the notification back")
    func traySwitchesForm() throws {
        var core = Self.showingMaps()
        #expect(core.trayKnown(present: true) == [.registerTray, .closeNotification(5)])
        #expect(core.indicator.trayLook.status == "Active")
        #expect(Self.notification(in: Self.read(&core, [Self.maps, Self.run])) == nil)
        let back = try #require(Self.notification(in: core.trayKnown(present: false)))
        #expect(back.replacesID == 0 && back.summary == "2 apps are using your location")
        // A tray not known yet shows no notification: the first answer decides.
        var unknown = AgentCore()
        _ = unknown.start()
        _ = unknown.capabilitiesKnown(["actions"])
        _ = unknown.watchOpened()
        #expect(Self.notification(in: unknown.statusRead(LocationUse(apps: [Self.maps], more: 0))) == nil)
        #expect(Self.notification(in: unknown.trayKnown(present: false)) != nil)
    }

    @Test("N5: a notification the person closed is not shown again until the list changes")
    func closedByPerson() throws {
        var core = Self.showingMaps()
        #expect(!core.notificationClosed(5).contains { if case .notifyInUse = $0 { true } else { false } })
        #expect(Self.read(&core, [Self.maps]).isEmpty)
        #expect(core.trayKnown(present: false).isEmpty)
        let changed = try #require(Self.notification(in: Self.read(&core, [Self.maps, Self.run])))
        #expect(changed.replacesID == 0)
    }

    @Test("N5: Settings on the notification, or a click on the tray item, opens the settings; nothing else answers")
    func settings() {
        var core = Self.showingMaps()
        #expect(core.actionInvoked("settings", on: 5) == [.openSettings])
        #expect(core.actionInvoked("default", on: 5).isEmpty)
        #expect(core.trayActivated() == [.openSettings])
    }

    @Test("N5: the prompts' notifications and the resident one stay apart")
    func apartFromPrompts() throws {
        var core = Self.showingMaps()
        let prompt = Prompt(
            id: "p1",
            appID: "com.ex.maps",
            kind: "authorization",
            usageDescription: "",
            options: ["deny"]
        )
        let asked = core.promptReceived(prompt, app: AppLook(name: "Maps"))
        for case .notify(let notification, _) in asked { #expect(notification.replacesID == 0) }
        _ = core.notificationShown(6, for: "p1")
        #expect(core.actionInvoked("deny", on: 6) == [.answer(prompt: "p1", answer: "deny", accuracy: nil)])
        #expect(core.promptWithdrawn("p1") == [.closeNotification(6)])
        // The prompt stream ends: its notifications close, the resident one stays.
        #expect(!core.streamLost("locd ended the prompt stream").contains(.closeNotification(5)))
        #expect(core.showsUse(5))
        #expect(core.stop().contains(.closeNotification(5)))
    }

    @Test("N5, N1: a lost Watch shows nothing in use, and opens again after 1 s doubling to 60 s")
    func watchLost() {
        var core = Self.showingMaps()
        let lost = core.watchLost("locd ended the event stream")
        #expect(lost.contains(.closeNotification(5)) && lost.contains(.showTray(Indicator.TrayLook(.none))))
        #expect(lost.last == .scheduleWatchRetry(seconds: 1))
        var waits: [Double] = []
        for _ in 0..<7 {
            #expect(core.watchRetryDue() == [.openWatch])
            for case .scheduleWatchRetry(let seconds) in core.watchLost("cannot reach locd") { waits.append(seconds) }
        }
        #expect(waits == [2, 4, 8, 16, 32, 60, 60])
        // An answer that comes after the loss is of a call that is gone.
        #expect(core.statusRead(LocationUse(apps: [Self.maps], more: 0)).isEmpty)
        _ = core.watchRetryDue()
        #expect(core.watchOpened() == [.readStatus])
        _ = core.watchEvent()
        #expect(core.watchLost("locd ended the event stream").last == .scheduleWatchRetry(seconds: 1))
    }

    @Test("N5: the list names each app once, by its .desktop name, the first 20 only, and counts the rest")
    func bounded() {
        let ids = (1...25).map { "com.ex.app\($0 < 10 ? "0" : "")\($0)" }
        let use = LocationUse(using: ids + ["com.ex.app01"], background: ["com.ex.app02", "com.ex.app25"]) {
            $0 == "com.ex.app01" ? "Zebra" : $0
        }
        #expect(use.apps.count == 20 && use.more == 5 && use.count == 25)
        #expect(use.apps.last == LocationUse.App(name: "Zebra", inBackground: false))
        #expect(use.apps.first == LocationUse.App(name: "com.ex.app02", inBackground: true))
        #expect(use.lines.last == "and 5 more")
        // An app in the background among those not shown still makes the item ask for attention.
        let hidden = LocationUse(using: ids, background: ["com.ex.app25"]) { $0 }
        #expect(hidden.trayStatus == "NeedsAttention")
        #expect(LocationUse(using: [], background: []) { $0 }.trayStatus == "Passive")
    }
}
