import Foundation
import LocationTestSupport
import Testing

/// The real xdg-desktop-portal 1.16 on the person's own session bus beside their store and locd-agent, and clients of
/// its Location portal that it takes for Flatpak apps (SEMANTICS N11). What 1.16 does (its source, and runs of it): with no
/// `org.freedesktop.impl.portal.Access` backend it does not offer `org.freedesktop.portal.Location` at all (so a
/// headless backend stands for the desktop's dialog and counts each question); a client it finds no Flatpak or snap
/// in gets EXACT without the store being read; a Flatpak app's entry in the store is read before any question, and
/// every `Start` writes it back as `[LEVEL, g_get_monotonic_time()]` (microseconds since boot, not Unix seconds).
extension AgentSettingsTests {
    static let portalProgram = "/usr/libexec/xdg-desktop-portal"

    /// Tests/GeoClueTests/Fixtures/portal: the headless Access backend (`fake_access.py`, which grants every
    /// `AccessDialog` and prints each), its `test.portal`, and the Location portal's client (`portal_client.py`).
    static func portalFixture(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("GeoClueTests/Fixtures/portal").appendingPathComponent(name).path
    }

    /// A script that runs its arguments after the first as a process the portal takes for the Flatpak app named by
    /// the first: in a user and mount namespace of the person's own, chrooted into a tmpfs that holds a
    /// `.flatpak-info` naming the app beside bind mounts of the host's directories (the portal reads
    /// `/proc/PID/root/.flatpak-info`; SEMANTICS I12 describes the same as what an app can forge).
    static let flatpakLauncher = """
        #!/bin/bash
        set -e
        root=$(mktemp -d /tmp/flatpak-root.XXXXXX)
        trap 'rmdir "$root"' EXIT
        /usr/bin/unshare --user --map-root-user --mount /bin/bash -c '
        set -e
        root=$0; app=$1; shift 1
        mount -t tmpfs tmpfs "$root"
        for path in /*; do
          name=${path#/}
          if [ -L "$path" ]; then ln -s "$(readlink "$path")" "$root/$name"
          elif [ -d "$path" ]; then mkdir "$root/$name"; mount --rbind "$path" "$root/$name"
          fi
        done
        printf "[Application]\\nname=%s\\n" "$app" > "$root/.flatpak-info"
        exec /usr/sbin/chroot "$root" "$@"
        ' "$root" "$@"

        """

    /// The portal and its Access backend started as the person, on their own bus; the portal's GeoClue is the
    /// person's bus too, where none runs, so that a granted `Start` ends in the portal's error response, not a crash.
    static func startPortal(_ desktop: Desktop) throws -> (portal: ScriptProcess, access: ScriptProcess) {
        let access = try desktop.start(["/usr/bin/python3", portalFixture("fake_access.py")], log: "access.log")
        let portal = try desktop.start(
            [
                "/usr/bin/env", "XDG_CURRENT_DESKTOP=test", "XDG_DESKTOP_PORTAL_DIR=\(portalFixture(""))",
                "DBUS_SYSTEM_BUS_ADDRESS=\(desktop.address)", "GSETTINGS_SCHEMA_DIR=/usr/share/glib-2.0/schemas",
                portalProgram, "--verbose",
            ],
            log: "portal.log"
        )
        for name in ["org.freedesktop.impl.portal.desktop.test", "org.freedesktop.portal.Desktop"] {
            let wait = try desktop.run(["/usr/bin/gdbus", "wait", "--session", "--timeout", "20", name])
            guard wait.status == 0 else { throw StandInFailure("\(name) did not start: \(portal.log)\(access.log)") }
        }
        return (portal, access)
    }

    /// The Location portal's client as Flatpak app `app`: CreateSession and Start, as the person.
    static func portalClient(_ desktop: Desktop, as app: String) throws {
        _ = try desktop.run([
            desktop.directory.at("flatpak-run"), app, "/usr/bin/python3", portalFixture("portal_client.py"), "2",
        ])
    }

    /// How many `AccessDialog`s the Access backend was asked, for `app`.
    static func dialogs(_ access: ScriptProcess, _ app: String) -> Int {
        access.log.split(separator: "\n").filter { $0.hasPrefix("AccessDialog ('\(app)'") }.count
    }

    @Test(
        """
        N11: the real portal asks nothing about a Flatpak app locd decided (its grant read from the store), refuses \
        one locd set to Never without asking, and asks once about an undecided one, whose answer is then locd's
        """,
        .enabled(
            if: isAvailable && FileManager.default.isExecutableFile(atPath: portalProgram),
            "needs root, dbus-daemon, xdg-permission-store, dconf and xdg-desktop-portal"
        )
    )
    func portalAsksOnce() throws {
        let decided = "org.example.Flat"
        let undecided = "org.example.Asked"
        let manifests = DaemonProcess.standardManifests.merging(
            DaemonProcess.manifests([decided, undecided, "xdg-desktop-portal"], whenInUse: "Shows where you are")
        ) { $1 }
        let daemon = try DaemonProcess(manifests: manifests)
        try daemon.start()
        let display = try XDisplay()
        let (alice, agent) = try Self.person(Self.alice, display, daemon)
        try alice.write("flatpak-run", Self.flatpakLauncher, executable: true)
        try Self.locctl(alice, daemon, ["auth", decided, "while-using"])
        #expect(eventually(timeout: 3) { Self.table(alice)[decided]?.first == "EXACT" }, "\(agent.log)")
        let (portal, access) = try Self.startPortal(alice)
        // Decided in locd: the portal reads the store's EXACT and shows no dialog.
        try Self.portalClient(alice, as: decided)
        let read = "Getting location permissions for '\(decided)'"
        #expect(eventually(timeout: 5) { portal.log.contains(read) }, "\(portal.log)")
        #expect(portal.log.contains("got permission store accuracy: EXACT"), "\(portal.log)")
        #expect(Self.dialogs(access, decided) == 0, "\(access.log)")
        // Never in locd: the store's NONE, refused without a dialog.
        try Self.locctl(alice, daemon, ["auth", decided, "never"])
        #expect(eventually(timeout: 3) { Self.table(alice)[decided]?.first == "NONE" }, "\(agent.log)")
        try Self.portalClient(alice, as: decided)
        #expect(eventually(timeout: 5) { portal.log.contains("got permission store accuracy: NONE") }, "\(portal.log)")
        #expect(Self.dialogs(access, decided) == 0, "\(access.log)")
        // Undecided: the portal asks once (its backend answers Allow), and the answer is locd's, the portal's own
        // app included, so that neither asks again.
        try Self.portalClient(alice, as: undecided)
        #expect(eventually(timeout: 5) { Self.dialogs(access, undecided) == 1 }, "\(access.log)\(portal.log)")
        #expect(
            eventually(timeout: 3) { Self.label(undecided, of: Self.alice, daemon) == "whileUsing" },
            "\(agent.log)"
        )
        #expect(eventually(timeout: 3) { Self.label("xdg-desktop-portal", of: Self.alice, daemon) == "whileUsing" })
        try Self.portalClient(alice, as: undecided)
        let reads = "Getting location permissions for '\(undecided)'"
        #expect(eventually(timeout: 5) { portal.log.components(separatedBy: reads).count == 3 }, "\(portal.log)")
        #expect(Self.dialogs(access, undecided) == 1, "\(access.log)")
        withExtendedLifetime(display) {}
    }
}
