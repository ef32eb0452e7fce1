import Foundation
import LocationTestSupport
import Testing

private let systemdAnalyze = "/usr/bin/systemd-analyze"

extension ProcessWideTests {
    /// The files under systemd/, checked by systemd's own tools on temporary copies.
    @Suite(
        "units: systemd/ as systemd reads it",
        .enabled(if: FileManager.default.isExecutableFile(atPath: systemdAnalyze))
    )
    struct UnitFileTests {
        static let analyze = systemdAnalyze
        static let units = [
            "locd.socket", "locd.service", "locd-gpsd.socket", "locd-gpsd.service", "locd-network.socket",
            "locd-network.service",
        ]
        static let systemdFolder = Repository.root() + "/systemd"

        /// Copies of the units in a temporary folder, `ExecStart=/usr/bin/locd` pointed at `/bin/true`
        /// (verify checks that the binary exists, and locd is not installed here).
        static func copies() throws -> String {
            let folder = try TemporaryDirectory(prefix: "locd-systemd").path
            for unit in units {
                let text = try String(contentsOfFile: systemdFolder + "/" + unit, encoding: .utf8)
                let patched = text.replacingOccurrences(of: "ExecStart=/usr/bin/locd ", with: "ExecStart=/bin/true ")
                    .replacingOccurrences(of: "ExecStart=/usr/bin/locd-network\n", with: "ExecStart=/bin/true\n")
                try patched.write(toFile: folder + "/" + unit, atomically: true, encoding: .utf8)
            }
            return folder
        }

        /// `key=value` lines of a unit, in order (comments and section headers left out).
        static func assignments(_ unit: String) throws -> [String] {
            try String(contentsOfFile: systemdFolder + "/" + unit, encoding: .utf8)
                .split(separator: "\n")
                .map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { !$0.isEmpty && !$0.hasPrefix("#") && !$0.hasPrefix("[") }
        }

        @Test("units: systemd-analyze verify accepts every unit without a complaint about locd")
        func verify() throws {
            let folder = try Self.copies()
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let result = try run(Self.analyze, ["verify", "--man=no"] + Self.units.map { folder + "/" + $0 })
            #expect(result.status == 0, "\(result.output)")
            let complaints = result.lines.filter { $0.localizedCaseInsensitiveContains("locd") }
            #expect(complaints.isEmpty, "\(complaints.joined(separator: "\n"))")
        }

        @Test(
            "units: systemd-analyze security scores locd.service and its gpsd proxy at most 1.0",
            arguments: ["locd.service", "locd-gpsd.service"]
        )
        func security(unit: String) throws {
            let folder = try Self.copies()
            defer { try? FileManager.default.removeItem(atPath: folder) }
            // --threshold is on a 0–100 scale: 10 is an exposure of 1.0.
            let result = try run(Self.analyze, ["security", "--offline=yes", "--threshold=10", folder + "/" + unit])
            #expect(result.status == 0, "\(result.output)")
            let summary = try #require(result.lines.first { $0.contains("Overall exposure level for \(unit):") })
            let score = summary.split(separator: ":").last?.split(separator: " ").first.flatMap { Double($0) }
            let exposure = try #require(score, "\(summary)")
            #expect(exposure <= 1.0, "\(summary)")
        }

        @Test("U6: systemd-analyze security scores locd-network.service at most 1.3: it needs the network and the bus")
        func networkSecurity() throws {
            let folder = try Self.copies()
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let unit = "locd-network.service"
            let result = try run(Self.analyze, ["security", "--offline=yes", "--threshold=13", folder + "/" + unit])
            #expect(result.status == 0, "\(result.output)")
            let summary = try #require(result.lines.first { $0.contains("Overall exposure level for \(unit):") })
            let score = summary.split(separator: ":").last?.split(separator: " ").first.flatMap { Double($0) }
            #expect(try #require(score, "\(summary)") <= 1.3, "\(summary)")
        }

        @Test("U6: locd-network.socket listens on /run/locd/network.sock for locd only")
        func networkSocket() throws {
            let lines = try Self.assignments("locd-network.socket")
            for line in [
                "ListenStream=/run/locd/network.sock", "SocketUser=locd", "SocketGroup=locd", "SocketMode=0600",
            ] {
                #expect(lines.contains(line), "\(line)")
            }
            #expect(try Self.assignments("locd.service").contains("PrivateNetwork=yes"))
        }

        @Test("units: locd.socket listens on /run/locd/io.locd for everyone and links both interfaces")
        func socket() throws {
            let lines = try Self.assignments("locd.socket")
            #expect(lines.contains("ListenStream=/run/locd/io.locd"))
            #expect(lines.contains("SocketMode=0666"))
            #expect(lines.contains("Symlinks=/run/varlink/registry/io.locd.App /run/varlink/registry/io.locd.Admin"))
            #expect(lines.contains("WantedBy=sockets.target"))
        }

        @Test("units: locd.service is Type=notify with a watchdog, reload by SIGHUP, and user locd")
        func service() throws {
            let lines = try Self.assignments("locd.service")
            for expected in [
                "Type=notify", "NotifyAccess=main", "ExecStart=/usr/bin/locd --config /etc/locd/locd.toml",
                "ExecReload=/bin/kill -HUP $MAINPID", "WatchdogSec=30s", "Restart=on-failure", "User=locd",
                "Group=locd", "StateDirectory=locd", "RuntimeDirectory=locd", "RuntimeDirectoryPreserve=yes",
            ] {
                #expect(lines.contains(expected), "\(expected)")
            }
        }

        @Test(
            "units: systemd-sysusers creates the user and group locd from locd.sysusers.conf",
            .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-sysusers"))
        )
        func sysusers() throws {
            let root = try TemporaryDirectory(prefix: "locd-systemd").path
            defer { try? FileManager.default.removeItem(atPath: root) }
            try FileManager.default.createDirectory(atPath: root + "/etc", withIntermediateDirectories: true)
            let result = try run(
                "/usr/bin/systemd-sysusers",
                ["--root=" + root, Self.systemdFolder + "/locd.sysusers.conf"]
            )
            #expect(result.status == 0, "\(result.output)")
            let passwd = try String(contentsOfFile: root + "/etc/passwd", encoding: .utf8)
            let group = try String(contentsOfFile: root + "/etc/group", encoding: .utf8)
            #expect(passwd.split(separator: "\n").contains { $0.hasPrefix("locd:") && $0.contains(":/var/lib/locd:") })
            #expect(group.split(separator: "\n").contains { $0.hasPrefix("locd:") })
        }

        @Test(
            "units: systemd-tmpfiles creates /run/varlink/registry from locd.tmpfiles.conf",
            .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-tmpfiles"))
        )
        func tmpfiles() throws {
            let root = try TemporaryDirectory(prefix: "locd-systemd").path
            defer { try? FileManager.default.removeItem(atPath: root) }
            let result = try run(
                "/usr/bin/systemd-tmpfiles",
                ["--root=" + root, "--create", Self.systemdFolder + "/locd.tmpfiles.conf"]
            )
            #expect(result.status == 0, "\(result.output)")
            var isDirectory: ObjCBool = false
            #expect(FileManager.default.fileExists(atPath: root + "/run/varlink/registry", isDirectory: &isDirectory))
            #expect(isDirectory.boolValue)
        }
    }
}
