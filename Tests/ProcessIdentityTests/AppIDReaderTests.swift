import Foundation
import Testing

@testable import ProcessIdentity

/// The app id of a process, in issue order: Flatpak id, snap name, systemd unit's app id, else none.
@Suite("App id of a process")
struct AppIDReaderTests {
    @Test("I12: a Flatpak app is named by [Application] name= of its /.flatpak-info, before any other source")
    func flatpak() throws {
        let proc = try FakeProc()
        try proc.write(
            42,
            "root/.flatpak-info",
            "[Application]\nname=org.gnome.Maps\nruntime=runtime/org.gnome.Platform/x86_64/46\n\n"
                + "[Instance]\ninstance-id=1234\n"
        )
        try proc.write(42, "attr/current", "snap.firefox.firefox (enforce)\n")
        try proc.cgroup(42, unit: "app-flatpak-org.gnome.Maps-1234.scope")
        #expect(AppIDReader(procRoot: proc.root).appID(of: 42) == AppID(id: "org.gnome.Maps", source: .flatpak))
    }

    @Test("I12: a .flatpak-info that is malformed, a link, or names an invalid id names no Flatpak app")
    func flatpakMalformed() throws {
        let cases = [
            "[Application]\nruntime=runtime/org.gnome.Platform\n",  // no name
            "[Runtime]\nname=org.gnome.Platform\n",  // a runtime, not an app
            "[Application\nname=org.gnome.Maps\n",  // broken group line
            "[Application]\nthis line is no key\nname=org.gnome.Maps\n",
            "[Application]\nname=gnome.Maps\n",  // two elements
            "[Application]\nname=org.gnome.1Maps\n",  // element starting with a digit
            "[Application]\nname=org.gno-me.Maps\n",  // dash before the last element
            "[Application]\nname=org..Maps\n",
            "[Application]\nname=org.gnome.Maps/../x\n",
            "[Application]\nname=\n",
        ]
        for text in cases {
            let proc = try FakeProc()
            try proc.write(7, "root/.flatpak-info", text)
            #expect(AppIDReader(procRoot: proc.root).flatpakID(of: 7) == nil, "\(text)")
        }
        let proc = try FakeProc()
        try proc.write(8, "root/elsewhere", "[Application]\nname=org.gnome.Maps\n")
        try proc.link(8, "root/.flatpak-info", to: "\(proc.root)/8/root/elsewhere")
        #expect(AppIDReader(procRoot: proc.root).flatpakID(of: 8) == nil)
        try FileManager.default.createDirectory(
            atPath: "\(proc.root)/9/root/.flatpak-info",
            withIntermediateDirectories: true
        )
        #expect(AppIDReader(procRoot: proc.root).flatpakID(of: 9) == nil)
        try proc.write(
            10,
            "root/.flatpak-info",
            "[Application]\nname=org.gnome.Maps\n" + String(repeating: "#", count: 70_000)
        )
        #expect(AppIDReader(procRoot: proc.root).flatpakID(of: 10) == nil)
        try proc.write(11, "root/.flatpak-info", "# made by flatpak\r\n[Application]\r\nname = org.gnome.Maps\r\n")
        #expect(AppIDReader(procRoot: proc.root).flatpakID(of: 11) == "org.gnome.Maps")
    }

    @Test("I12: a snap is named by its AppArmor label, which its processes cannot change, not by its cgroup")
    func snap() throws {
        let proc = try FakeProc()
        try proc.write(5, "attr/apparmor/current", "snap.firefox.firefox (enforce)\n")
        try proc.write(5, "attr/current", "unconfined\n")
        try proc.cgroup(5, unit: "app-gnome-firefox_firefox-77.scope")
        #expect(AppIDReader(procRoot: proc.root).appID(of: 5) == AppID(id: "firefox", source: .snap))
        try proc.write(6, "attr/current", "snap.firefox_beta.hook.configure (complain)\n")
        #expect(AppIDReader(procRoot: proc.root).snapName(of: 6) == "firefox_beta")
        // A cgroup scope named like a snap's is a name any process of the user can ask for: not a snap.
        try proc.write(12, "cgroup", "0::/user.slice/user-1000.slice/user@1000.service/snap.firefox.firefox-1.scope\n")
        try proc.write(12, "attr/current", "unconfined\n")
        #expect(AppIDReader(procRoot: proc.root).appID(of: 12) == nil)
    }

    @Test("I12: labels that are not a snap app's name no snap")
    func snapMalformed() {
        for label in [
            "unconfined", "snap-update-ns.firefox (enforce)", "snap.firefox (enforce)", "snap..firefox (enforce)",
            "snap.Firefox.firefox (enforce)", "snap.-fire.x (enforce)", "snap.fire--fox.x (enforce)", "snap.a.x",
            "snap.123.x", "snap.firefox_.x", "snap.firefox_TOOLONGKEY1.x", "snap.firefox.", "/usr/bin/man (enforce)",
        ] {
            #expect(AppIDGrammar.snapName(fromLabel: label) == nil, "\(label)")
        }
        #expect(AppIDGrammar.snapName(fromLabel: "snap.firefox.firefox//&:lxd:default (enforce)") == "firefox")
    }

    @Test("I12: a systemd user unit app-[LAUNCHER-]ID-RANDOM.scope or app-[LAUNCHER-]ID@RANDOM.service names its app")
    func systemdUnit() throws {
        let units = [
            ("app-gnome-org.gnome.Maps-4312.scope", "org.gnome.Maps"),
            ("app-org.gnome.Maps-4312.scope", "org.gnome.Maps"),
            ("app-gnome-org.gnome.Maps@a1b2.service", "org.gnome.Maps"),
            ("app-org.kde.dolphin.service", "org.kde.dolphin"),
            ("app-gnome-gnome\\x2dweather-99.scope", "gnome-weather"),
            ("app-flatpak-org.example.My\\x2dApp-5.scope", "org.example.My-App"),
        ]
        for (unit, id) in units {
            let proc = try FakeProc()
            try proc.cgroup(100, unit: unit)
            #expect(AppIDReader(procRoot: proc.root).appID(of: 100) == AppID(id: id, source: .systemdUnit), "\(unit)")
        }
        // A hybrid system: the name=systemd hierarchy, when there is no unified line.
        let proc = try FakeProc()
        try proc.write(
            101,
            "cgroup",
            "12:cpuset:/\n1:name=systemd:/user.slice/user-1000.slice/user@1000.service/app-gnome-org.gnome.Maps-1.scope\n"
        )
        #expect(AppIDReader(procRoot: proc.root).unitAppID(of: 101) == "org.gnome.Maps")
        // The deepest unit counts: a sub-scope of a delegated service is not the service's app.
        try proc.write(102, "cgroup", "0::/user.slice/app-gnome-org.gnome.Maps-1.scope/helper.scope\n")
        #expect(AppIDReader(procRoot: proc.root).unitAppID(of: 102) == nil)
    }

    @Test("I12: unit names outside the convention, or with bad escapes, name no app")
    func systemdUnitMalformed() {
        for unit in [
            "session-2.scope", "app.slice", "app-.scope", "app-org.gnome.Maps.scope", "app-org.gnome.Maps-.scope",
            "app-gnome-gnome-weather-99.scope", "app-gnome-org.gnome.Maps@.service", "app-gnome-org.gnome.Maps-1.mount",
            "app-gnome-x\\x2-1.scope", "app-gnome-x\\y2d-1.scope", "app-gnome-a\\x2fb-1.scope",
            "app-gnome-a\\x0ab-1.scope",
            "app-gnome-a\\x20b-1.scope", "app-gn.ome-org.x-1.scope", "app-gnome-org.x-1_2.scope",
            "gnome-terminal-server.service",
        ] {
            #expect(AppIDGrammar.appID(fromUnit: unit) == nil, "\(unit)")
        }
    }

    @Test("I12: a process with none of the sources, or no such process, has no derived app id")
    func none() throws {
        let proc = try FakeProc()
        try proc.write(3, "cgroup", "0::/user.slice/user-1000.slice/session-2.scope\n")
        try proc.write(3, "attr/current", "unconfined\n")
        let reader = AppIDReader(procRoot: proc.root)
        #expect(reader.appID(of: 3) == nil)
        #expect(reader.appID(of: 4) == nil)
        #expect(reader.appID(of: 0) == nil)
        #expect(reader.appID(of: -1) == nil)
        try proc.write(13, "cgroup", "garbage without a colon\n")
        #expect(reader.appID(of: 13) == nil)
    }

    @Test("I12: on the real /proc, the test process's id follows from its own flatpak-info, label and cgroup")
    func realProc() throws {
        let pid = getpid()
        let reader = AppIDReader()
        let derived = reader.appID(of: pid)
        // What the test process is, read here the plain way: it is no Flatpak app and no snap when these are
        // absent, and the unit is whatever its cgroup file ends in.
        let flatpak = FileManager.default.fileExists(atPath: "/.flatpak-info")
        let label = (try? String(contentsOfFile: "/proc/self/attr/current", encoding: .utf8)) ?? "unconfined"
        let cgroup = try String(contentsOfFile: "/proc/self/cgroup", encoding: .utf8)
        if !flatpak && !label.hasPrefix("snap.") {
            let leaf = cgroup.split(separator: "\n").first { $0.hasPrefix("0::") }?.split(separator: "/").last
            let isAppUnit = leaf.map { $0.hasPrefix("app-") } ?? false
            #expect((derived?.source == .systemdUnit) == isAppUnit, "\(cgroup)")
            if !isAppUnit { #expect(derived == nil) }
        }
        #expect(reader.appID(of: pid) == derived)
    }
}
