import Foundation
import LocationTestSupport
import Testing

/// A GeoClue client's prompt (where-am-i through locd-geoclue) on the person's desktop: the real locd-agent between
/// the harness's locd and dunst under Xvfb on a session bus of the test's own, whose context menu the test answers as
/// a person would; and the same desktop beside a stand-in GNOME Shell, whose own dialog asks instead.
@Suite("GeoClue2: a client's prompt answered on the person's desktop", .serialized)
struct GeoClueDesktopTests {
    /// The harness (locd and locd-geoclue on a private system bus), and a desktop with dunst on a display of its own.
    private static func scene() throws -> (GeoClueHarness, Desktop) {
        let harness = try GeoClueHarness()
        let desktop = try Desktop(display: try XDisplay())
        try desktop.startDunst()
        return (harness, desktop)
    }

    /// locd-agent on the harness's locd, once locd counts it (and `others` agents beside it) as an agent.
    private static func agent(
        _ harness: GeoClueHarness,
        _ desktop: Desktop,
        besides others: Int = 0
    ) throws -> ScriptProcess {
        let agent = try desktop.startAgent(socket: harness.socket)
        guard eventually({ (try? GeoClueAgentTests.locdAgents(harness)) == others + 1 }) else {
            throw HarnessFailure("locd-agent did not open its prompt stream: \(agent.log)")
        }
        return agent
    }

    /// A stand-in GNOME Shell: a connection of the desktop's that owns `org.gnome.Shell` on its session bus.
    private static func gnomeShell(_ desktop: Desktop) throws -> ScriptProcess {
        let script = """
            from gi.repository import Gio, GLib
            Gio.bus_own_name(Gio.BusType.SESSION, "org.gnome.Shell", Gio.BusNameOwnerFlags.NONE, None,
                             lambda *_: print("owned", flush=True), None)
            GLib.MainLoop().run()
            """
        let shell = try desktop.start(["/usr/bin/python3", "-c", script], log: "gnome-shell.log")
        guard shell.waitFor("owned") else {
            throw HarnessFailure("the stand-in GNOME Shell did not start: \(shell.log)")
        }
        return shell
    }

    /// The scene beside a stand-in GNOME Shell whose dialog is a GeoClue agent answering in `mode`
    /// (Fixtures/geoclue_agent.py), and locd-agent started once both run.
    private static func besideGnomeShell(
        answering mode: String
    ) throws -> (
        harness: GeoClueHarness, desktop: Desktop, shell: ScriptProcess, dialog: ScriptProcess, agent: ScriptProcess
    ) {
        let (harness, desktop) = try scene()
        let shell = try gnomeShell(desktop)
        let dialog = try GeoClueAgentTests.agent(harness, mode)
        let agent = try Self.agent(harness, desktop, besides: 1)
        return (harness, desktop, shell, dialog, agent)
    }

    private static func record(_ harness: GeoClueHarness, _ app: String) throws -> String? {
        try GeoClueAgentTests.authorization(harness, app)["status"] as? String
    }

    @Test(
        "N2, N3: where-am-i's prompt shows in dunst; Allow While Using App locates it, Don't Allow fails its Start",
        .enabled(if: Desktop.isAvailable, "needs dunst, Xvfb and dbus-daemon (.ci/install-deps --tests)"),
        arguments: [
            ("Allow While Using App", "test.allowed", "authorizedWhenInUse"), ("Don't Allow", "test.denied", "denied"),
        ]
    )
    func answeredInDunst(label: String, app: String, status: String) throws {
        let (harness, desktop) = try Self.scene()
        let agent = try Self.agent(harness, desktop)
        let client = try harness.pythonRunning(["where-am-i", app, "8"])
        defer { client.kill9() }
        #expect(desktop.waitForDisplayed(1), "\(agent.log)\(client.log)")
        let menu = try desktop.choose(label)
        #expect(menu.contains("#\(label) (Allow “\(app)” to use your location?)"), "\(menu)")
        let outcome = try #require(
            client.waitFor { $0["Latitude"] != nil || $0["error"] != nil },
            "\(client.log)\(agent.log)"
        )
        if status == "denied" {
            #expect(outcome["error"] == .string("org.freedesktop.DBus.Error.AccessDenied"), "\(outcome)")
        } else {
            #expect(outcome["Latitude"] == .double(GeoClueHarness.latitude), "\(outcome)")
            #expect(outcome["Longitude"] == .double(GeoClueHarness.longitude), "\(outcome)")
        }
        #expect(try Self.record(harness, app) == status)
        // Answered: locd withdraws the prompt, and its notification closes.
        #expect(desktop.waitForDisplayed(0), "\(agent.log)")
    }

    @Test(
        "N6: beside GNOME Shell, the GeoClue agent answers where-am-i's prompt and locd-agent shows no notification",
        .enabled(if: Desktop.isAvailable, "needs dunst, Xvfb and dbus-daemon (.ci/install-deps --tests)")
    )
    func leftToGnomeShell() throws {
        let (harness, desktop, shell, geoclueAgent, agent) = try Self.besideGnomeShell(answering: "allow:8")
        defer { geoclueAgent.closeInput() }
        #expect(agent.waitFor("GNOME Shell runs in this session"), "\(agent.log)")
        let result = try harness.python(["where-am-i", "test.allowed", "8"])
        let location = try #require(result.objects.first, "\(result.output)\(result.errors)\(agent.log)")
        #expect(location["Latitude"] as? Double == GeoClueHarness.latitude, "\(location)")
        #expect(geoclueAgent.log.contains("{\"asked\": [\"test.allowed\", 8]}"), "\(geoclueAgent.log)")
        // locd-agent was sent the prompt and left it to GNOME Shell's dialog: no Notify, nothing in dunst.
        #expect(agent.waitFor("left to GNOME Shell's dialog"), "\(agent.log)")
        #expect(!agent.log.contains("shows prompt"), "\(agent.log)")
        #expect(try desktop.displayed() == 0)
        #expect(desktop.menus.isEmpty)
        #expect(try Self.record(harness, "test.allowed") == "authorizedWhenInUse")
        withExtendedLifetime(shell) {}
    }

    @Test(
        "N6: when GNOME Shell leaves with the prompt unanswered, locd-agent shows it, and the answer in dunst counts",
        .enabled(if: Desktop.isAvailable, "needs dunst, Xvfb and dbus-daemon (.ci/install-deps --tests)")
    )
    func shownWhenGnomeShellLeaves() throws {
        // GNOME Shell's dialog is up, and the person does not answer it.
        let (harness, desktop, shell, geoclueAgent, agent) = try Self.besideGnomeShell(answering: "silent")
        defer { geoclueAgent.closeInput() }
        let client = try harness.pythonRunning(["where-am-i", "test.allowed", "8"])
        defer { client.kill9() }
        #expect(agent.waitFor("left to GNOME Shell's dialog"), "\(agent.log)\(client.log)")
        #expect(try desktop.displayed() == 0)
        shell.kill9()
        #expect(desktop.waitForDisplayed(1), "\(agent.log)")
        _ = try desktop.choose("Allow While Using App")
        let location = try #require(client.waitFor { $0["Latitude"] != nil }, "\(client.log)\(agent.log)")
        #expect(location["Latitude"] == .double(GeoClueHarness.latitude), "\(location)")
        #expect(try Self.record(harness, "test.allowed") == "authorizedWhenInUse")
    }
}
