import Foundation
import JSON
import LocationTestSupport
import Testing

/// The real locd with a `[geoclue]` table naming a GeoClue configuration (SEMANTICS G30–G33).
@Suite("GeoClue's configuration in locd")
struct GeoClueImportTests {
    /// A GeoClue configuration: the static source at `/etc/geolocation`'s point, Wi-Fi off, `com.ex.maps` a system
    /// component, `com.ex.run` refused, and two sources locd has no counterpart for.
    static let geoclueConf = """
        [wifi]
        enable=false
        [static-source]
        enable=true
        [3g]
        enable=true
        [com.ex.maps]
        allowed=true
        system=true
        users=
        [com.ex.run]
        allowed=false
        """

    private static func daemon(_ directory: TemporaryDirectory, more: String = "") throws -> DaemonProcess {
        let conf = try directory.write("geoclue/geoclue.conf", geoclueConf)
        let point = try directory.write("geolocation", "# Paris\n48.8566\n2.3522\n35\n25\n")
        // G32: the grant reaches com.ex.maps only as the program its manifest names, this test's own.
        var manifests = DaemonProcess.standardManifests
        manifests["com.ex.maps"] = """
            id = "com.ex.maps"
            identity = "executable"
            executables = ["\(testExecutable)"]
            NSLocationWhenInUseUsageDescription = "Shows you on the map"
            """
        return try DaemonProcess(
            manifests: manifests,
            settings: DaemonProcess.fastLifecycle + "\n[geoclue]\nconfig = \"\(conf)\"\ngeolocation = \"\(point)\"\n"
                + more
        )
    }

    /// The executable of this test process, as `/proc/PID/exe` shows it.
    static var testExecutable: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? "/proc/self/exe"
    }

    @Test("G31, G32: the static source's point is what a system=true app gets, authorized with no prompt")
    func systemAppLocatesFromStaticSource() throws {
        let directory = try TemporaryDirectory(prefix: "geoclue-conf")
        defer { directory.remove() }
        let daemon = try Self.daemon(directory)
        try daemon.start()
        let app = try daemon.app("com.ex.maps", state: "foreground")
        let authorization = try app.call("io.locd.App.GetAuthorization")["authorization"]
        #expect(authorization?["status"] == .string("authorizedWhenInUse"), "\(daemon.logSoFar)")
        try app.call("io.locd.App.CreateSession", ["authorization": .string("whenInUse")])
        let stream = try daemon.app("com.ex.maps", state: "foreground")
        var update = try stream.stream("io.locd.App.LiveUpdates")["update"] ?? .null
        while update["location"] == nil || update["location"] == .null {
            update = try stream.next()["update"] ?? .null
        }
        #expect(update["location"]?["latitude"]?.doubleValue == 48.8566)
        #expect(update["location"]?["longitude"]?.doubleValue == 2.3522)
        #expect(update["location"]?["horizontalAccuracy"]?.doubleValue == 25)
        // No prompt was raised for it: an agent sees none.
        let admin = try daemon.connect()
        let apps = try admin.call("io.locd.Admin.ListApps")["apps"]?.arrayValue ?? []
        let maps = apps.first { $0["appId"] == .string("com.ex.maps") && $0["user"] != nil && $0["user"] != .null }
        #expect(maps?["authorization"]?["settingsLabel"] == .string("whileUsing"))
        // The person may still refuse it: Never is kept over the administrator's grant.
        try admin.call(
            "io.locd.Admin.SetAuthorization",
            ["appId": .string("com.ex.maps"), "setting": .string("never"), "user": .int(Int64(getuid()))]
        )
        #expect(
            try app.call("io.locd.App.GetAuthorization")["authorization"]?["status"] == .string("denied")
        )
    }

    @Test("G31: an app GeoClue's configuration says allowed=false of is restricted")
    func refusedAppIsRestricted() throws {
        let directory = try TemporaryDirectory(prefix: "geoclue-conf")
        defer { directory.remove() }
        let daemon = try Self.daemon(directory)
        try daemon.start()
        let app = try daemon.app("com.ex.run", state: "foreground")
        #expect(try app.call("io.locd.App.GetAuthorization")["authorization"]?["status"] == .string("restricted"))
        let created = try app.call("io.locd.App.CreateSession", ["authorization": .string("whenInUse")])
        #expect(created.flags == ["authorizationRestricted"])
    }

    @Test("G33: a key locd cannot carry is logged once at start, not again at a reload, and a new one once")
    func notCarriedLoggedOnce() throws {
        let directory = try TemporaryDirectory(prefix: "geoclue-conf")
        defer { directory.remove() }
        let daemon = try Self.daemon(directory)
        try daemon.start()
        let admin = try daemon.connect()
        // Admin.Reload is answered once the daemon traps SIGHUP, a moment after it listens.
        let reloaded = eventually(timeout: 20, every: 0.05) {
            (try? admin.call("io.locd.Admin.Reload")) != nil
        }
        #expect(reloaded)
        try directory.write("geoclue/conf.d/50-compass.conf", "[compass]\nenable=true\n")
        try admin.call("io.locd.Admin.Reload")
        try admin.call("io.locd.Admin.Reload")
        #expect(daemon.stop() == 0)
        let lines = daemon.errorOutput.split(separator: "\n")
        let threeG = lines.filter { $0.contains("geoclue.conf:6: key 3g.enable: not carried") }
        #expect(threeG.count == 1, "\(daemon.errorOutput)")
        let compass = lines.filter { $0.contains("50-compass.conf:2: key compass.enable: not carried") }
        #expect(compass.count == 1, "\(daemon.errorOutput)")
    }

    @Test(
        "G32: a grant whose id no executable manifest verifies is logged once at start, not again at a reload, and a new one once"
    )
    func unverifiedGrantLoggedOnce() throws {
        let directory = try TemporaryDirectory(prefix: "geoclue-conf")
        defer { directory.remove() }
        let daemon = try Self.daemon(
            directory,
            more: "\n[[administered-app]]\nid = \"com.ex.run\"\nauthorized = true\n"
        )
        try daemon.start()
        let admin = try daemon.connect()
        let reloaded = eventually(timeout: 20, every: 0.05) {
            (try? admin.call("io.locd.Admin.Reload")) != nil
        }
        #expect(reloaded)
        try directory.write("geoclue/conf.d/50-shell.conf", "[org.gnome.Shell]\nallowed=true\nsystem=true\n")
        try admin.call("io.locd.Admin.Reload")
        try admin.call("io.locd.Admin.Reload")
        #expect(daemon.stop() == 0)
        let lines = daemon.errorOutput.split(separator: "\n")
        // com.ex.run's manifest says identity = "any": any program could say it is com.ex.run.
        let run = lines.filter { $0.contains("the grant of com.ex.run ([[administered-app]] of ") }
        #expect(run.count == 1, "\(daemon.errorOutput)")
        let shell = lines.filter {
            $0.contains("the grant of org.gnome.Shell (GeoClue's [org.gnome.Shell] system=true")
        }
        #expect(shell.count == 1, "\(daemon.errorOutput)")
        #expect(shell.first?.contains("50-shell.conf:3") == true, "\(daemon.errorOutput)")
        // com.ex.maps's manifest names its program: its grant applies, and nothing is said of it.
        #expect(!daemon.errorOutput.contains("the grant of com.ex.maps"), "\(daemon.errorOutput)")
    }
}
