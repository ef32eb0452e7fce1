import Foundation
import LocationTestSupport
import Testing

/// systemd/'s files for locd-geoclue, checked by the tools that read them.
@Suite("GeoClue2: the unit, the D-Bus policy and the activation file")
struct GeoClueUnitTests {
    static let systemdFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("systemd").path

    /// A folder with a copy of the unit whose ExecStart is /bin/true: verify checks that the binary exists, and
    /// locd-geoclue is not installed here.
    static func patchedCopy() throws -> String {
        let folder = try TemporaryDirectory(prefix: "units").path
        let unit = try text("locd-geoclue.service")
            .replacingOccurrences(of: "ExecStart=/usr/bin/locd-geoclue", with: "ExecStart=/bin/true")
        try unit.write(toFile: folder + "/locd-geoclue.service", atomically: true, encoding: .utf8)
        return folder
    }

    static func text(_ name: String) throws -> String {
        try String(contentsOfFile: systemdFolder + "/" + name, encoding: .utf8)
    }

    @Test(
        "G10: enabling locd-geoclue makes it geoclue.service, so GeoClue's activation starts it; disabling gives it back",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/systemctl"))
    )
    func switchFromGeoClueAndBack() throws {
        let root = try TemporaryDirectory(prefix: "switch")
        defer { root.remove() }
        // A machine with GeoClue's unit installed, and locd-geoclue's beside it, as `make install` puts it.
        try root.write(
            "usr/lib/systemd/system/geoclue.service",
            "[Unit]\nDescription=GeoClue\n[Service]\nType=dbus\nBusName=org.freedesktop.GeoClue2\nExecStart=/bin/true\n"
        )
        try root.write("usr/lib/systemd/system/locd-geoclue.service", try Self.text("locd-geoclue.service"))
        let link = root.at("etc/systemd/system/geoclue.service")
        let enable = try Command.run(["/usr/bin/systemctl", "--root=" + root.path, "enable", "locd-geoclue.service"])
        #expect(enable.status == 0, "\(enable.errors)")
        #expect(
            (try? FileManager.default.destinationOfSymbolicLink(atPath: link))
                == "/usr/lib/systemd/system/locd-geoclue.service"
        )
        let disable = try Command.run(["/usr/bin/systemctl", "--root=" + root.path, "disable", "locd-geoclue.service"])
        #expect(disable.status == 0, "\(disable.errors)")
        #expect(!FileManager.default.fileExists(atPath: link), "the link outlived disable: GeoClue stays shadowed")
    }

    @Test(
        "G10: systemd-analyze verify accepts locd-geoclue.service without a complaint about it",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze"))
    )
    func verify() throws {
        let folder = try Self.patchedCopy()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try Command.run([
            "/usr/bin/systemd-analyze", "verify", "--man=no", folder + "/locd-geoclue.service",
        ])
        #expect(result.status == 0, "\(result.output)\(result.errors)")
        let complaints = (result.output + result.errors).split(separator: "\n").filter { $0.contains("locd-geoclue") }
        #expect(complaints.isEmpty, "\(complaints.joined(separator: "\n"))")
    }

    @Test(
        "G10: systemd-analyze security scores locd-geoclue.service at most 1.0",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze"))
    )
    func security() throws {
        let folder = try Self.patchedCopy()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // --threshold is on a 0–100 scale: 10 is an exposure of 1.0.
        let result = try Command.run([
            "/usr/bin/systemd-analyze", "security", "--offline=yes", "--threshold=10",
            folder + "/locd-geoclue.service",
        ])
        #expect(result.status == 0, "\(result.output)\(result.errors)")
        let lines = result.output.split(separator: "\n")
        let summary = try #require(
            lines.first { $0.contains("Overall exposure level for locd-geoclue.service:") },
            "\(result.output)"
        )
        let score = summary.split(separator: ":").last?.split(separator: " ").first.flatMap { Double($0) }
        #expect((score ?? 10) <= 1.0, "\(summary)")
    }

    @Test(
        "G10: locd-geoclue.service is Type=dbus with BusName org.freedesktop.GeoClue2 and the activation file names it"
    )
    func busActivation() throws {
        let unit = try Self.text("locd-geoclue.service").split(separator: "\n").map(String.init)
        for line in ["Type=dbus", "BusName=org.freedesktop.GeoClue2", "User=locd-geoclue", "NoNewPrivileges=yes"] {
            #expect(unit.contains(line), "\(line)")
        }
        let activation = try Self.text("org.freedesktop.GeoClue2.service").split(separator: "\n").map(String.init)
        for line in ["Name=org.freedesktop.GeoClue2", "SystemdService=locd-geoclue.service", "User=locd-geoclue"] {
            #expect(activation.contains(line), "\(line)")
        }
    }

    @Test(
        "G10: dbus-daemon accepts the policy file, which lets locd-geoclue own the name and everyone call it",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-daemon"))
    )
    func policyLoads() throws {
        let temporary = try TemporaryDirectory(prefix: "policy")
        defer { temporary.remove() }
        let folder = temporary.path
        let policy = try Self.text("org.freedesktop.GeoClue2.conf")
        #expect(policy.contains("<allow own=\"org.freedesktop.GeoClue2\"/>"))
        // A bus that includes the policy file: dbus-daemon refuses a configuration it cannot parse.
        try """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>system</type>
          <listen>unix:path=\(folder)/bus</listen>
          <auth>EXTERNAL</auth>
          <include>\(Self.systemdFolder)/org.freedesktop.GeoClue2.conf</include>
        </busconfig>
        """.write(toFile: folder + "/bus.conf", atomically: true, encoding: .utf8)
        let bus = try ScriptProcess(
            ["/usr/bin/dbus-daemon", "--config-file=" + folder + "/bus.conf", "--nofork", "--print-address=1"],
            logPath: folder + "/bus.log"
        )
        defer { bus.kill9() }
        #expect(bus.waitFor("unix:path="), "\(bus.log)")
    }
}
