import LocationTestSupport
import Testing

@testable import LocationCore

/// SEMANTICS L10–L13 in the core: the person's desktop says what is in front, and decides.
@Suite("Desktop")
struct DesktopTests {
    private static let alice: UInt32 = 1000
    private static let bob: UInt32 = 1001
    private static let maps = AppKey("com.ex.maps", user: alice)
    private static let run = AppKey("com.ex.run", user: alice)

    /// Reports `front` for Alice on `desktop`, a connection of hers; returns the call's error, if any.
    @discardableResult
    private func report(
        _ h: inout Harness,
        _ desktop: ClientID,
        _ front: [FrontWindow],
        locked: Bool = false,
        failure: String? = nil,
        user: UInt32? = nil
    ) -> LocationError? {
        let call = h.call(
            desktop,
            .setDesktop(name: "sway", front: front, locked: locked, failure: failure, user: user)
        )
        return h.error(of: call)
    }

    private func view(_ h: inout Harness, _ client: ClientID, _ key: AppKey) -> AppView? {
        let call = h.call(client, .listApps(user: nil))
        guard case .apps(let views)? = h.reply(to: call) else { return nil }
        return views.first { $0.appID == key.appID && $0.user == key.user }
    }

    @Test("L10: the app of the window in front is in the foreground; another in front, it is in use for the grace only")
    func frontIsForeground() {
        var h = Harness()
        let maps = h.launch(Self.maps.appID, user: Self.alice)
        _ = h.launch(Self.run.appID, user: Self.alice)
        let desktop = h.person(Self.alice)
        #expect(report(&h, desktop, [FrontWindow(names: ["com.ex.maps"])]) == nil)
        #expect(h.appState(Self.maps) == .foreground)
        #expect(h.appState(Self.run) == .background, "a running app with no window in front is in the background")
        report(&h, desktop, [FrontWindow(names: ["org.example.Terminal"])])
        #expect(h.appState(Self.maps) == .background)
        h.advance(5)
        #expect(h.inUse(Self.maps), "within the background grace (L2)")
        h.advance(6)
        #expect(!h.inUse(Self.maps), "past the grace once another window is in front")
        report(&h, desktop, [FrontWindow(names: ["com.ex.maps"]), FrontWindow(names: ["com.ex.run"])])
        #expect(h.appState(Self.maps) == .foreground && h.appState(Self.run) == .foreground, "side by side, both")
        _ = maps
    }

    @Test("L10: while the session is locked nothing is in front")
    func lockedIsBackground() {
        var h = Harness()
        _ = h.launch(Self.maps.appID, user: Self.alice)
        let desktop = h.person(Self.alice)
        report(&h, desktop, [FrontWindow(names: ["com.ex.maps"])], locked: true)
        #expect(h.appState(Self.maps) == .background)
        report(&h, desktop, [FrontWindow(names: ["com.ex.maps"])])
        #expect(h.appState(Self.maps) == .foreground)
    }

    @Test("L11: an app's own foreground does not raise it while its desktop decides, logged once; background does")
    func claimsDoNotRaise() {
        var h = Harness()
        let maps = h.launch(Self.maps.appID, user: Self.alice)
        let desktop = h.person(Self.alice)
        report(&h, desktop, [])
        h.call(maps, .setAppState(.foreground))
        #expect(h.appState(Self.maps) == .background)
        #expect(h.last.contains { if case .overruled(Self.maps, "sway") = $0 { true } else { false } })
        h.call(maps, .setAppState(.foreground))
        #expect(h.appState(Self.maps) == .background)
        #expect(!h.last.contains { if case .overruled = $0 { true } else { false } }, "said once")
        report(&h, desktop, [FrontWindow(names: ["com.ex.maps"])])
        #expect(h.appState(Self.maps) == .foreground)
        h.call(maps, .setAppState(.background))
        #expect(h.appState(Self.maps) == .background, "an app may say it went to the background")
    }

    @Test("L11: an app launched while its desktop decides and not in front starts in the background, not in use")
    func launchedBehind() {
        var h = Harness()
        let desktop = h.person(Self.alice)
        report(&h, desktop, [FrontWindow(names: ["org.example.Terminal"])])
        _ = h.launch(Self.maps.appID, user: Self.alice, state: .foreground)
        #expect(h.appState(Self.maps) == .background)
        #expect(!h.inUse(Self.maps), "no grace: it was never in front")
    }

    @Test("L11: once the source's connection closes, or it cannot read the desktop, apps take their own word again")
    func sourceGoes() {
        var h = Harness()
        _ = h.launch(Self.maps.appID, user: Self.alice)
        let desktop = h.person(Self.alice)
        report(&h, desktop, [])
        #expect(h.appState(Self.maps) == .background)
        report(&h, desktop, [], failure: "sway's socket refused the connection")
        #expect(h.appState(Self.maps) == .foreground, "its Hello claimed the foreground (L1)")
        report(&h, desktop, [])
        #expect(h.appState(Self.maps) == .background)
        h.disconnect(desktop)
        #expect(h.appState(Self.maps) == .foreground)
        let admin = h.connect(uid: 0)
        let call = h.call(admin, .adminSetAppState(appID: Self.maps.appID, state: .background, user: Self.alice))
        #expect(h.error(of: call) == nil, "with no source, Admin.SetAppState moves the app (L1)")
    }

    @Test("L11: a user reports only for their own apps; naming another user is refused; Admin.SetAppState yields")
    func ownUserOnly() {
        var h = Harness()
        _ = h.launch(Self.maps.appID, user: Self.alice)
        let bobsMaps = AppKey(Self.maps.appID, user: Self.bob)
        _ = h.launch(bobsMaps.appID, user: Self.bob)
        let mallory = h.person(Self.bob)
        guard case .permissionDenied? = report(&h, mallory, [], user: Self.alice) else {
            Issue.record("naming another user was not refused")
            return
        }
        #expect(h.appState(Self.maps) == .foreground, "Alice's app is untouched")
        report(&h, mallory, [])
        #expect(h.appState(Self.maps) == .foreground, "Bob's desktop decides Bob's apps only")
        #expect(h.appState(bobsMaps) == .background)
        let admin = h.connect(uid: 0)
        #expect(report(&h, admin, [], user: Self.alice) == nil, "an administrator may report for any user")
        #expect(h.appState(Self.maps) == .background)
        let call = h.call(admin, .adminSetAppState(appID: Self.maps.appID, state: .foreground, user: Self.alice))
        guard case .invalidParameter? = h.error(of: call) else {
            Issue.record("Admin.SetAppState under a desktop source answered \(String(describing: h.error(of: call)))")
            return
        }
    }

    @Test("L12: a window matches its app by process, by a descendant that claims the foreground, by executable")
    func matching() {
        var h = Harness()
        let desktop = h.person(Self.alice)
        report(&h, desktop, [])
        let maps = h.person(Self.alice, pid: 500)
        h.call(maps, .hello(appID: Self.maps.appID, state: nil))
        report(&h, desktop, [FrontWindow(names: ["foot"], pid: 500)])
        #expect(h.appState(Self.maps) == .foreground, "the window's process is the app's client")
        let run = h.person(Self.alice, pid: 702)
        h.call(run, .hello(appID: Self.run.appID, state: nil))
        report(&h, desktop, [FrontWindow(names: ["foot"], pid: 700, descendants: [701, 702])])
        #expect(h.appState(Self.run) == .foreground, "a program in the terminal window in front")
        #expect(h.appState(Self.maps) == .background)
        h.call(run, .setAppState(.background))
        #expect(h.appState(Self.run) == .background, "its terminal's job control says it is not the foreground job")
        h.call(run, .setAppState(.foreground))
        #expect(h.appState(Self.run) == .foreground)
        let manifests =
            Harness.defaultManifests + [
                Manifest(appID: "com.ex.tool", whenInUseUsageDescription: "Tool", executables: ["/usr/bin/ex-tool"])
            ]
        var g = Harness(manifests)
        let other = g.person(Self.alice)
        report(&g, other, [FrontWindow(names: [], pid: 900, executable: "/usr/bin/ex-tool")])
        _ = g.launch("com.ex.tool", user: Self.alice)
        #expect(g.appState(AppKey("com.ex.tool", user: Self.alice)) == .foreground, "the manifest's executable")
    }

    @Test("L13: ListApps says which source decided each running app's state, Status each source the caller may see")
    func sourceShown() {
        var h = Harness()
        let maps = h.launch(Self.maps.appID, user: Self.alice)
        #expect(view(&h, maps, Self.maps)?.stateSource == "app")
        let desktop = h.person(Self.alice)
        report(&h, desktop, [FrontWindow(names: ["com.ex.maps"])])
        #expect(view(&h, maps, Self.maps)?.stateSource == "sway")
        let bob = h.person(Self.bob)
        let bobs = h.call(bob, .status)
        guard case .status(let hidden)? = h.reply(to: bobs) else { return }
        #expect(hidden.desktops.isEmpty, "another user's desktop is not Bob's business")
        report(&h, desktop, [], failure: "sway went away")
        let call = h.call(desktop, .status)
        guard case .status(let status)? = h.reply(to: call) else {
            Issue.record("Status answered \(String(describing: h.reply(to: call)))")
            return
        }
        #expect(status.desktops.map(\.failure) == ["sway went away"])
        #expect(view(&h, maps, Self.maps)?.stateSource == "app")
    }
}
