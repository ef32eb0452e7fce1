import Foundation
import JSON
import LocationTestSupport
import Testing
import Varlink

#if canImport(Glibc)
import Glibc
#endif

/// locd-agent between the real locd and the desktop's own settings (SEMANTICS N7–N13): the real `xdg-permission-store`
/// and the real dconf, started on demand on each person's own session bus, written as GNOME Settings, KDE and
/// `gsettings` write them, each person an ordinary uid of their own.
@Suite("locd-agent and the desktop's settings", .serialized)
struct AgentSettingsTests {
    static let storeProgram = "/usr/libexec/xdg-permission-store"
    static let dconfService = "/usr/libexec/dconf-service"
    static let isAvailable =
        Desktop.isAvailable && getuid() == 0
        && [storeProgram, dconfService, "/usr/bin/dconf", "/usr/bin/gdbus", "/usr/bin/gsettings"].allSatisfy {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    static let services = [
        "org.freedesktop.impl.portal.PermissionStore": storeProgram, "ca.desrt.dconf": dconfService,
    ]
    /// Uids no system account uses: ordinary users to the kernel and to locd.
    static let alice: UInt32 = 61_021
    static let bob: UInt32 = 61_022

    /// The store's method `member` with `arguments`, called as the person with gdbus; what it printed.
    @discardableResult
    static func store(_ desktop: Desktop, _ member: String, _ arguments: [String]) throws -> String {
        let call = try desktop.run(
            [
                "/usr/bin/gdbus", "call", "--session", "-d", "org.freedesktop.impl.portal.PermissionStore", "-o",
                "/org/freedesktop/impl/portal/PermissionStore", "-m",
                "org.freedesktop.impl.portal.PermissionStore.\(member)",
            ] + arguments
        )
        guard call.status == 0 else { throw StandInFailure("\(member) failed: \(call.output)") }
        return call.output
    }

    /// The person's `location` table, as GNOME Settings reads it (`Lookup`): app id → its strings.
    static func table(_ desktop: Desktop) -> [String: [String]] {
        guard let text = try? store(desktop, "Lookup", ["location", "location"]) else { return [:] }
        var table: [String: [String]] = [:]
        let entry = /'([^']+)': \[([^\]]*)\]/
        for match in text.matches(of: entry) {
            table[String(match.1)] = String(match.2).matches(of: /'([^']*)'/).map { String($0.1) }
        }
        return table
    }

    /// Writes the whole table with `Set`, as GNOME Settings' per-app switch does: `app` at `level`, its LAST_USED
    /// and every other entry kept.
    static func setAsGNOMESettings(_ desktop: Desktop, _ app: String, _ level: String) throws {
        var entries = table(desktop)
        entries[app] = [level, entries[app]?.last ?? "0"]
        let text = entries.map { "'\($0.key)': [\($0.value.map { "'\($0)'" }.joined(separator: ", "))]" }
        try store(desktop, "Set", ["location", "true", "location", "{\(text.joined(separator: ", "))}", "<byte 0>"])
    }

    /// The record of `app` of user `uid`, as an administrator's `ListApps` shows it.
    static func record(_ app: String, of uid: UInt32, _ daemon: DaemonProcess) -> JSONValue? {
        let reply = try? daemon.connect().call("io.locd.Admin.ListApps", ["user": .int(Int64(uid))])
        return reply?["apps"]?.arrayValue?.first { $0["appId"] == .string(app) }?["authorization"]
    }

    static func label(_ app: String, of uid: UInt32, _ daemon: DaemonProcess) -> String? {
        record(app, of: uid, daemon)?["settingsLabel"]?.stringValue
    }

    /// `locctl ARGUMENTS` as the person; what it printed.
    @discardableResult
    static func locctl(_ desktop: Desktop, _ daemon: DaemonProcess, _ arguments: [String]) throws -> String {
        let run = try desktop.run([DaemonProcess.executable("locctl")] + arguments + ["--socket", daemon.socketPath])
        guard run.status == 0 else { throw StandInFailure("locctl \(arguments) failed: \(run.output)") }
        return run.output
    }

    /// `Status` as the person (`locctl status --json`).
    static func status(_ desktop: Desktop, _ daemon: DaemonProcess) -> JSONValue? {
        guard let text = try? locctl(desktop, daemon, ["status", "--json"]) else { return nil }
        return JSONValue.parse(Array(text.utf8))
    }

    /// GNOME's switch in the person's dconf: `true`, `false`, or "" while unset.
    static func gnomeSwitch(_ desktop: Desktop) -> String? {
        let read = try? desktop.run(["/usr/bin/dconf", "read", "/org/gnome/system/location/enabled"])
        return read?.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `gsettings set org.gnome.system.location enabled VALUE` as the person, as GNOME Settings' switch writes it.
    static func setGNOMESwitch(_ desktop: Desktop, _ value: Bool) throws {
        let set = try desktop.run([
            "/usr/bin/env", "GSETTINGS_SCHEMA_DIR=/usr/share/glib-2.0/schemas", "/usr/bin/gsettings", "set",
            "org.gnome.system.location", "enabled", value ? "true" : "false",
        ])
        guard set.status == 0 else { throw StandInFailure("gsettings set failed: \(set.output)") }
    }

    /// Whether `value` is a LAST_USED of the last minute.
    static func isRecent(_ value: String?) -> Bool {
        guard let value, let seconds = Double(value) else { return false }
        return abs(Date().timeIntervalSince1970 - seconds) < 60
    }

    /// A person: their own session bus with the store and dconf to start on demand, and their locd-agent.
    static func person(_ uid: UInt32, _ display: XDisplay, _ daemon: DaemonProcess) throws -> (Desktop, ScriptProcess) {
        let desktop = try Desktop(display: display, uid: uid, services: services)
        let agent = try desktop.startAgent(socket: daemon.socketPath)
        return (desktop, agent)
    }
}

extension AgentSettingsTests {
    @Test(
        """
        N7, N9: locctl auth while-using makes the store read [EXACT, now], --precise off a coarser level, never \
        [NONE, …]; GNOME Settings' Set (old LAST_USED kept) and KDE's SetPermission decide in locd
        """,
        .enabled(if: isAvailable, "needs root, dbus-daemon, xdg-permission-store and dconf")
    )
    func bothWays() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let display = try XDisplay()
        let (alice, agent) = try Self.person(Self.alice, display, daemon)
        let maps = "com.ex.maps"
        try Self.locctl(alice, daemon, ["auth", maps, "while-using"])
        #expect(eventually(timeout: 3) { Self.table(alice)[maps]?.first == "EXACT" }, "\(agent.log)")
        #expect(Self.isRecent(Self.table(alice)[maps]?.last), "\(Self.table(alice))")
        try Self.locctl(alice, daemon, ["auth", maps, "while-using", "--precise", "off"])
        #expect(eventually(timeout: 3) { Self.table(alice)[maps]?.first == "CITY" }, "\(agent.log)")
        try Self.locctl(alice, daemon, ["auth", maps, "never"])
        #expect(eventually(timeout: 3) { Self.table(alice)[maps]?.first == "NONE" }, "\(agent.log)")
        #expect(Self.table(alice)[maps]?.count == 2)
        // GNOME Settings' switch on: the whole table written back, only the app's LEVEL changed.
        try Self.setAsGNOMESettings(alice, maps, "EXACT")
        #expect(eventually(timeout: 3) { Self.label(maps, of: Self.alice, daemon) == "whileUsing" }, "\(agent.log)")
        #expect(Self.record(maps, of: Self.alice, daemon)?["accuracy"] == .string("fullAccuracy"))
        let stamp = Self.table(alice)[maps]?.last
        try Self.setAsGNOMESettings(alice, maps, "NONE")
        #expect(eventually(timeout: 3) { Self.label(maps, of: Self.alice, daemon) == "never" }, "\(agent.log)")
        #expect(Self.table(alice)[maps] == ["NONE", stamp ?? ""], "the store's own write is not echoed")
        try Self.setAsGNOMESettings(alice, maps, "EXACT")
        #expect(eventually(timeout: 3) { Self.label(maps, of: Self.alice, daemon) == "whileUsing" }, "\(agent.log)")
        // KDE's App Permissions (and the portal) write one app.
        let run = "com.ex.run"
        try Self.store(alice, "SetPermission", ["location", "true", "location", run, "['STREET', '0']"])
        #expect(eventually(timeout: 3) { Self.label(run, of: Self.alice, daemon) == "whileUsing" }, "\(agent.log)")
        #expect(Self.record(run, of: Self.alice, daemon)?["accuracy"] == .string("reducedAccuracy"))
        // LAST_USED alone changes nothing in locd, and the store keeps what it was given.
        try Self.store(alice, "SetPermission", ["location", "true", "location", run, "['STREET', '5']"])
        try Self.store(alice, "DeletePermission", ["location", "location", maps])
        #expect(eventually(timeout: 3) { Self.label(maps, of: Self.alice, daemon) == "askNextTime" }, "\(agent.log)")
        #expect(Self.table(alice)[run] == ["STREET", "5"])
        #expect(Self.label(run, of: Self.alice, daemon) == "whileUsing")
        withExtendedLifetime(display) {}
    }

    @Test(
        """
        H6, N12, N13: GNOME's switch off turns that user's location services off in locd (Status as that user), the \
        machine's untouched, and on again; locctl services off shows in GNOME; Debian's unset default is no decision
        """,
        .enabled(if: isAvailable, "needs root, dbus-daemon, xdg-permission-store and dconf")
    )
    func gnomeSwitch() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let display = try XDisplay()
        let (alice, agent) = try Self.person(Self.alice, display, daemon)
        // Unset (Debian's default false, never touched): locd's switch, on, is written to it.
        #expect(eventually(timeout: 3) { Self.gnomeSwitch(alice) == "true" }, "\(agent.log)")
        func own() -> JSONValue? { Self.status(alice, daemon)?["locationServicesEnabledForUser"] }
        try Self.setGNOMESwitch(alice, false)
        #expect(eventually(timeout: 3) { own() == .bool(false) }, "\(agent.log)")
        let machine = try daemon.connect().call("io.locd.Admin.Status")["status"]
        #expect(machine?["locationServicesEnabled"] == .bool(true))
        try Self.setGNOMESwitch(alice, true)
        #expect(eventually(timeout: 3) { own() == .bool(true) }, "\(agent.log)")
        try Self.locctl(alice, daemon, ["services", "off"])
        #expect(eventually(timeout: 3) { Self.gnomeSwitch(alice) == "false" }, "\(agent.log)")
        #expect(own() == .bool(false))
        withExtendedLifetime(display) {}
    }
}

extension AgentSettingsTests {
    @Test(
        "N13: a second user who writes the first user's app id into their own store changes only their own app",
        .enabled(if: isAvailable, "needs root, dbus-daemon, xdg-permission-store and dconf")
    )
    func anotherUsersStore() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let display = try XDisplay()
        let (alice, aliceAgent) = try Self.person(Self.alice, display, daemon)
        let (bob, bobAgent) = try Self.person(Self.bob, display, daemon)
        let maps = "com.ex.maps"
        try Self.locctl(alice, daemon, ["auth", maps, "while-using"])
        #expect(eventually(timeout: 3) { Self.table(alice)[maps]?.first == "EXACT" }, "\(aliceAgent.log)")
        // The attack: bob's own store says alice's Maps is NONE, and KDE's way says the same of another app.
        try Self.store(bob, "SetPermission", ["location", "true", "location", maps, "['NONE', '0']"])
        try Self.setAsGNOMESettings(bob, "com.ex.run", "NONE")
        #expect(eventually(timeout: 3) { Self.label(maps, of: Self.bob, daemon) == "never" }, "\(bobAgent.log)")
        #expect(eventually(timeout: 3) { Self.label("com.ex.run", of: Self.bob, daemon) == "never" })
        #expect(Self.label(maps, of: Self.alice, daemon) == "whileUsing")
        #expect(Self.label("com.ex.run", of: Self.alice, daemon) == "askNextTime")
        #expect(Self.table(alice)[maps]?.first == "EXACT" && Self.table(alice)["com.ex.run"] == nil)
        // Nor does alice's decision reach bob's store, nor bob's switch alice's.
        try Self.locctl(alice, daemon, ["auth", "com.ex.run", "always"])
        #expect(eventually(timeout: 3) { Self.table(alice)["com.ex.run"]?.first == "EXACT" })
        try Self.setGNOMESwitch(bob, false)
        #expect(eventually(timeout: 3) { Self.status(bob, daemon)?["locationServicesEnabledForUser"] == .bool(false) })
        #expect(Self.table(bob)["com.ex.run"]?.first == "NONE")
        #expect(Self.status(alice, daemon)?["locationServicesEnabledForUser"] == .bool(true))
        #expect(Self.gnomeSwitch(alice) == "true")
        withExtendedLifetime(display) {}
    }

    @Test(
        """
        N13: a Changed from anyone but the store counts for nothing; the store restarted under the agent is followed \
        again; with no store the agent says so once and goes on
        """,
        .enabled(if: isAvailable, "needs root, dbus-daemon, xdg-permission-store and dconf")
    )
    func storeComesAndGoes() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let display = try XDisplay()
        let (alice, agent) = try Self.person(Self.alice, display, daemon)
        let maps = "com.ex.maps"
        try Self.locctl(alice, daemon, ["auth", maps, "while-using"])
        #expect(eventually(timeout: 3) { Self.table(alice)[maps]?.first == "EXACT" }, "\(agent.log)")
        // N13: `Changed` is a broadcast anyone on the bus may emit: one not from the store's own name counts for nothing.
        let forged = try alice.run([
            "/usr/bin/gdbus", "emit", "--session", "--object-path", "/org/freedesktop/impl/portal/PermissionStore",
            "--signal", "org.freedesktop.impl.portal.PermissionStore.Changed", "location", "location", "false",
            "<byte 0>", "{'\(maps)': ['NONE', '0']}",
        ])
        #expect(forged.status == 0, "\(forged.output)")
        try Self.locctl(alice, daemon, ["auth", "com.ex.run", "never"])
        #expect(eventually(timeout: 3) { Self.table(alice)["com.ex.run"]?.first == "NONE" }, "\(agent.log)")
        #expect(Self.label(maps, of: Self.alice, daemon) == "whileUsing")
        // Had it counted, the store's next Changed would have put it back: the copy it made shows in the log.
        #expect(!agent.log.contains("\(maps): never in the permission store"), "\(agent.log)")
        // The store killed, as a crash or a package upgrade would; the next call starts another.
        let owner = try alice.run([
            "/usr/bin/gdbus", "call", "--session", "-d", "org.freedesktop.DBus", "-o", "/org/freedesktop/DBus", "-m",
            "org.freedesktop.DBus.GetConnectionUnixProcessID", "org.freedesktop.impl.portal.PermissionStore",
        ])
        let pid = try #require(owner.output.firstMatch(of: /uint32 (\d+)/).flatMap { Int32($0.1) }, "\(owner.output)")
        kill(pid, SIGKILL)
        #expect(eventually(timeout: 3) { kill(pid, 0) != 0 })
        try Self.setAsGNOMESettings(alice, maps, "NONE")
        #expect(eventually(timeout: 3) { Self.label(maps, of: Self.alice, daemon) == "never" }, "\(agent.log)")
        try Self.locctl(alice, daemon, ["auth", maps, "while-using", "--precise", "off"])
        #expect(eventually(timeout: 3) { Self.table(alice)[maps]?.first == "CITY" }, "\(agent.log)")
        // A person with nothing of the store installed: said once, and the rest goes on.
        let bare = try Desktop(display: display, uid: Self.bob)
        let lone = try bare.startAgent(socket: daemon.socketPath)
        #expect(eventually { lone.log.contains("no permission store on the session bus") }, "\(lone.log)")
        try Self.locctl(bare, daemon, ["auth", maps, "while-using"])
        try Self.locctl(bare, daemon, ["auth", maps, "never"])
        #expect(eventually { Self.label(maps, of: Self.bob, daemon) == "never" })
        #expect(lone.process.isRunning)
        #expect(lone.log.components(separatedBy: "no permission store").count == 2, "\(lone.log)")
        withExtendedLifetime(display) {}
    }
}

extension AgentSettingsTests {
    @Test(
        """
        N10, N12: at login, with nothing agreed yet, a Never in the store wins over While Using in locd, and a GNOME \
        switch the person set off turns locd off for them; what both then hold is kept for the next login
        """,
        .enabled(if: isAvailable, "needs root, dbus-daemon, xdg-permission-store and dconf")
    )
    func login() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let display = try XDisplay()
        let alice = try Desktop(display: display, uid: Self.alice, services: Self.services)
        let maps = "com.ex.maps"
        try Self.locctl(alice, daemon, ["auth", maps, "while-using"])
        try Self.locctl(alice, daemon, ["auth", "com.ex.run", "while-using", "--precise", "off"])
        try Self.store(alice, "SetPermission", ["location", "true", "location", maps, "['NONE', '1700000000']"])
        try Self.setGNOMESwitch(alice, false)
        let agent = try alice.startAgent(socket: daemon.socketPath)
        #expect(eventually(timeout: 3) { Self.label(maps, of: Self.alice, daemon) == "never" }, "\(agent.log)")
        #expect(eventually(timeout: 3) { Self.table(alice)["com.ex.run"]?.first == "CITY" }, "\(agent.log)")
        #expect(Self.table(alice)[maps] == ["NONE", "1700000000"])
        #expect(
            eventually(timeout: 3) { Self.status(alice, daemon)?["locationServicesEnabledForUser"] == .bool(false) }
        )
        #expect(Self.gnomeSwitch(alice) == "false")
        let kept = alice.directory.at(".local/state/locd/desktop-settings")
        #expect(eventually { (try? String(contentsOfFile: kept, encoding: .utf8))?.contains("@switch off") == true })
        let text = (try? String(contentsOfFile: kept, encoding: .utf8)) ?? ""
        #expect(text.contains("\(maps) never\n") && text.contains("com.ex.run approximate\n"), "\(text)")
        withExtendedLifetime(display) {}
    }
}

extension AgentSettingsTests {
    @Test(
        """
        N11: the portal's grant of a Flatpak app in the store is locd's decision of that app, and answers locd's \
        question about the portal's own app; locd's decision is in the store the portal reads before it asks
        """,
        .enabled(if: isAvailable, "needs root, dbus-daemon, xdg-permission-store and dconf")
    )
    func askedOnceThroughThePortal() throws {
        let flatpak = "org.example.Weather"
        let manifests = DaemonProcess.standardManifests.merging(
            DaemonProcess.manifests([flatpak, "xdg-desktop-portal"], whenInUse: "Shows the weather where you are")
        ) { $1 }
        let daemon = try DaemonProcess(manifests: manifests)
        try daemon.start()
        let display = try XDisplay()
        let (alice, agent) = try Self.person(Self.alice, display, daemon)
        let (bob, _) = try Self.person(Self.bob, display, daemon)
        // The portal's Access dialog answered Allow: it writes the app's grant with SetPermission.
        let now = String(Int(Date().timeIntervalSince1970))
        try Self.store(alice, "SetPermission", ["location", "true", "location", flatpak, "['EXACT', '\(now)']"])
        #expect(eventually(timeout: 3) { Self.label(flatpak, of: Self.alice, daemon) == "whileUsing" }, "\(agent.log)")
        #expect(eventually(timeout: 3) { Self.label("xdg-desktop-portal", of: Self.alice, daemon) == "whileUsing" })
        #expect(Self.record("xdg-desktop-portal", of: Self.alice, daemon)?["accuracy"] == .string("fullAccuracy"))
        #expect(Self.label("xdg-desktop-portal", of: Self.bob, daemon) == "askNextTime")
        #expect(Self.table(bob).isEmpty)
        // Decided in locd: the store the portal reads before it asks says so.
        try Self.locctl(alice, daemon, ["auth", flatpak, "never"])
        #expect(eventually(timeout: 3) { Self.table(alice)[flatpak]?.first == "NONE" }, "\(agent.log)")
        // The person's Never of the portal's own app stays, whatever the store grants later.
        try Self.locctl(alice, daemon, ["auth", "xdg-desktop-portal", "never"])
        try Self.store(alice, "SetPermission", ["location", "true", "location", flatpak, "['CITY', '\(now)']"])
        #expect(eventually(timeout: 3) { Self.label(flatpak, of: Self.alice, daemon) == "whileUsing" })
        #expect(Self.label("xdg-desktop-portal", of: Self.alice, daemon) == "never")
        withExtendedLifetime(display) {}
    }
}

extension AgentSettingsTests {
    @Test(
        "N14: GNOME's max-accuracy-level below exact makes the person's precise apps approximate, and exact gives it back",
        .enabled(if: isAvailable, "needs root, dbus-daemon, xdg-permission-store and dconf")
    )
    func accuracyLimit() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let display = try XDisplay()
        let (alice, agent) = try Self.person(Self.alice, display, daemon)
        let maps = "com.ex.maps"
        try Self.locctl(alice, daemon, ["auth", maps, "always"])
        #expect(eventually(timeout: 3) { Self.table(alice)[maps]?.first == "EXACT" }, "\(agent.log)")
        func accuracy() -> JSONValue? { Self.record(maps, of: Self.alice, daemon)?["accuracy"] }
        func limit(_ level: String) throws {
            let set = try alice.run([
                "/usr/bin/env", "GSETTINGS_SCHEMA_DIR=/usr/share/glib-2.0/schemas", "/usr/bin/gsettings", "set",
                "org.gnome.system.location", "max-accuracy-level", level,
            ])
            guard set.status == 0 else { throw StandInFailure("gsettings set failed: \(set.output)") }
        }
        try limit("city")
        #expect(eventually(timeout: 3) { accuracy() == .string("reducedAccuracy") }, "\(agent.log)")
        #expect(Self.label(maps, of: Self.alice, daemon) == "always")
        #expect(eventually(timeout: 3) { Self.table(alice)[maps]?.first == "CITY" }, "\(agent.log)")
        try limit("exact")
        #expect(eventually(timeout: 3) { accuracy() == .string("fullAccuracy") }, "\(agent.log)")
        #expect(eventually(timeout: 3) { Self.table(alice)[maps]?.first == "EXACT" }, "\(agent.log)")
        withExtendedLifetime(display) {}
    }
}

extension AgentSettingsTests {
    static let gnomeSettings = "/usr/bin/gnome-control-center"

    /// How many pixels of the display have GNOME's accent blue, the colour of a switch that is on.
    static func switchesOn(_ display: XDisplay) throws -> Int {
        let directory = try TemporaryDirectory(prefix: "agent-shot")
        defer { directory.remove() }
        let shot = directory.at("shot.png")
        try display.screenshot(to: shot)
        let count = try ChildProcess([
            "/usr/bin/convert", shot, "-fill", "black", "+opaque", "#3584e4", "-fill", "white", "-opaque", "#3584e4",
            "-format", "%[fx:int(mean*w*h)]", "info:",
        ])
        guard count.status == 0, let pixels = Int(count.output.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw StandInFailure("convert failed: \(count.output)")
        }
        return pixels
    }

    @Test(
        """
        N7, N9: GNOME Settings' Location page lists the app locd allowed, its switch on, turns it off when locd says \
        Never, and a click on it allows the app in locd again; the screenshot goes to $LOCD_SCREENSHOTS when set \
        (USAGE's image)
        """,
        .enabled(
            if: isAvailable && FileManager.default.isExecutableFile(atPath: gnomeSettings)
                && XDisplay.hasMenuTools,
            "needs gnome-control-center, ImageMagick and what the others need"
        )
    )
    func gnomeSettingsPage() throws {
        let maps = "org.gnome.Maps"
        let manifests = DaemonProcess.standardManifests.merging(
            DaemonProcess.manifests([maps], whenInUse: "Shows where you are on the map")
        ) { $1 }
        let daemon = try DaemonProcess(manifests: manifests)
        try daemon.start()
        let display = try XDisplay()
        let (alice, agent) = try Self.person(Self.alice, display, daemon)
        try alice.write(
            "share/applications/\(maps).desktop",
            "[Desktop Entry]\nType=Application\nName=Maps\nExec=true\nIcon=find-location\n"
        )
        try Self.locctl(alice, daemon, ["auth", maps, "while-using"])
        #expect(eventually(timeout: 3) { Self.table(alice)[maps]?.first == "EXACT" }, "\(agent.log)")
        // GNOME Settings asks the system bus for things of its own at start: a private one of the person's.
        let system = alice.directory.at("system-bus")
        try alice.write(
            "system.conf",
            """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig><type>system</type><listen>unix:path=\(system)</listen><auth>EXTERNAL</auth>
            <policy context="default"><allow send_destination="*"/><allow receive_sender="*"/><allow own="*"/></policy>
            </busconfig>
            """
        )
        try alice.start(
            ["/usr/bin/dbus-daemon", "--config-file=" + alice.directory.at("system.conf"), "--nofork"],
            log: "system.log"
        )
        #expect(eventually { FileManager.default.fileExists(atPath: system) })
        let before = try Self.switchesOn(display)
        let settings = try alice.start(
            [
                "/usr/bin/env", "DBUS_SYSTEM_BUS_ADDRESS=unix:path=\(system)", "GTK_A11Y=none", "GSK_RENDERER=cairo",
                "XDG_DATA_DIRS=/usr/local/share:/usr/share", "XDG_CURRENT_DESKTOP=GNOME", Self.gnomeSettings,
                "location",
            ],
            log: "gnome-control-center.log"
        )
        // Two switches drawn on: Location Services (GNOME's switch, which locd's turned on) and Maps'.
        #expect(eventually(timeout: 30) { ((try? Self.switchesOn(display)) ?? 0) > before + 1000 }, "\(settings.log)")
        let on = try Self.switchesOn(display)
        let screenshot = alice.directory.at("gnome-settings.png")
        try display.screenshot(to: screenshot)
        if let folder = ProcessInfo.processInfo.environment["LOCD_SCREENSHOTS"], !folder.isEmpty {
            try? FileManager.default.removeItem(atPath: folder + "/gnome-settings-location.png")
            try FileManager.default.copyItem(atPath: screenshot, toPath: folder + "/gnome-settings-location.png")
        }
        // Never in locd: the page follows the store's Changed, and Maps' switch goes off.
        try Self.locctl(alice, daemon, ["auth", maps, "never"])
        #expect(eventually(timeout: 10) { ((try? Self.switchesOn(display)) ?? on) < on - 300 }, "\(settings.log)")
        // The person clicks Maps' switch on the page (where the screenshot shows it): GNOME Settings' Set, and locd
        // allows Maps again.
        let click = try ChildProcess(
            ["/usr/bin/xdotool", "mousemove", "864", "208", "click", "1"],
            environment: ["DISPLAY": display.name]
        )
        #expect(click.status == 0, "\(click.output)")
        #expect(eventually(timeout: 3) { Self.label(maps, of: Self.alice, daemon) == "whileUsing" }, "\(agent.log)")
        withExtendedLifetime(display) {}
    }
}

extension AgentSettingsTests {
    @Test(
        """
        N9: while an app locates for longer than the period, the store's LAST_USED of it moves forward, its LEVEL \
        unchanged; another app's entry is untouched
        """,
        .enabled(if: isAvailable, "needs root, dbus-daemon, xdg-permission-store and dconf")
    )
    func lastUseKeptCurrent() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let display = try XDisplay()
        let alice = try Desktop(display: display, uid: Self.alice, services: Self.services)
        // The period made 2 s, so that three of them pass within the test (N9: 60 s by default).
        let agent = try alice.start(
            [
                "/usr/bin/env", "LOCD_AGENT_LAST_USED_INTERVAL=2", DaemonProcess.executable("locd-agent"), "--socket",
                daemon.socketPath, "--verbose",
            ],
            log: "agent.log"
        )
        let maps = "com.ex.maps"
        let idle = "com.ex.run"
        try Self.locctl(alice, daemon, ["auth", maps, "always"])
        try Self.locctl(alice, daemon, ["auth", idle, "while-using"])
        #expect(eventually(timeout: 3) { Self.table(alice)[maps]?.first == "EXACT" }, "\(agent.log)")
        #expect(eventually(timeout: 3) { Self.table(alice)[idle]?.first == "EXACT" }, "\(agent.log)")
        // An old LAST_USED, as GNOME Settings would keep it, so that each write of the agent shows.
        try Self.store(alice, "SetPermission", ["location", "true", "location", maps, "['EXACT', '1000']"])
        let idleEntry = Self.table(alice)[idle]
        let app = try alice.start(
            [DaemonProcess.executable("locd-example"), "--socket", daemon.socketPath, "--app", maps],
            log: "maps.log"
        )
        func using() -> Bool {
            let status = try? daemon.connect().call("io.locd.Admin.Status")["status"]
            return status?["appsUsingLocation"]?.arrayValue?.contains(.string(maps)) ?? false
        }
        #expect(eventually(timeout: 10) { using() }, "\(app.log)")
        func lastUsed() -> Int? { Self.table(alice)[maps].flatMap { $0.count == 2 ? Int($0[1]) : nil } }
        // Written when it starts…
        #expect(eventually(timeout: 5) { (lastUsed() ?? 0) > 1000 }, "\(agent.log)")
        let first = try #require(lastUsed())
        #expect(Self.isRecent(String(first)))
        // …and again while it goes on, each later than the one before.
        #expect(eventually(timeout: 8) { (lastUsed() ?? 0) > first }, "\(agent.log)")
        let second = try #require(lastUsed())
        #expect(eventually(timeout: 8) { (lastUsed() ?? 0) > second }, "\(agent.log)")
        #expect(using(), "\(app.log)")
        #expect(Self.table(alice)[maps]?.first == "EXACT")
        #expect(Self.label(maps, of: Self.alice, daemon) == "always")
        #expect(Self.table(alice)[idle] == idleEntry)
        withExtendedLifetime(display) {}
    }
}
