import Foundation
import LocationTestSupport
import Testing

extension ProcessWideTests {
    @Suite(
        "install: systemd/install.mk stages a release into DESTDIR",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/make"))
    )
    struct InstallTests {
        @Test("install: make install puts the binary, units, sysusers and tmpfiles where systemd looks")
        func stage() throws {
            let scratch = try TemporaryDirectory(prefix: "locd-systemd").path
            defer { try? FileManager.default.removeItem(atPath: scratch) }
            let build = scratch + "/build"
            let stage = scratch + "/stage"
            try FileManager.default.createDirectory(atPath: build, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: "/bin/true", toPath: build + "/locd")

            let result = try run(
                "/usr/bin/make",
                [
                    "-s", "-f", "systemd/install.mk", "install", "DESTDIR=" + stage, "BUILD=" + build,
                    "PREFIX=/usr/local",
                ],
                directory: Repository.root()
            )
            #expect(result.status == 0, "\(result.output)")

            let expected: [(path: String, mode: Int)] = [
                ("/usr/local/bin/locd", 0o755),
                ("/usr/lib/systemd/system/locd.socket", 0o644),
                ("/usr/lib/systemd/system/locd.service", 0o644),
                ("/usr/lib/systemd/system/locd-gpsd.socket", 0o644),
                ("/usr/lib/systemd/system/locd-gpsd.service", 0o644),
                ("/usr/lib/sysusers.d/locd.conf", 0o644),
                ("/usr/lib/tmpfiles.d/locd.conf", 0o644),
                ("/usr/lib/systemd/system/locd-network.socket", 0o644),
                ("/usr/lib/systemd/system/locd-network.service", 0o644),
                ("/usr/lib/sysusers.d/locd-network.conf", 0o644),
                ("/usr/local/share/dbus-1/system.d/locd-network.conf", 0o644),
                ("/usr/local/share/man/man8/locd.8", 0o644),
                ("/usr/local/share/man/man1/locctl.1", 0o644),
                ("/usr/local/share/man/man5/locd.toml.5", 0o644),
                ("/usr/local/share/man/man5/locd-apps.d.5", 0o644),
                ("/usr/local/share/man/man8/locd-geoclue.8", 0o644),
                ("/usr/local/share/man/man8/locd-network.8", 0o644),
            ]
            for file in expected {
                let attributes = try? FileManager.default.attributesOfItem(atPath: stage + file.path)
                let mode = (attributes?[.posixPermissions] as? NSNumber)?.intValue
                #expect(mode == file.mode, "\(file.path)")
            }
            #expect(!FileManager.default.fileExists(atPath: stage + "/usr/local/bin/locctl"))
            let service = try String(contentsOfFile: stage + "/usr/lib/systemd/system/locd.service", encoding: .utf8)
            #expect(service.contains("ExecStart=/usr/local/bin/locd --config /etc/locd/locd.toml"))
            // The vendor directory is there for apps to fill, and empty: the demo's manifests (identity "any") are
            // never installed.
            let vendor = try FileManager.default.contentsOfDirectory(atPath: stage + "/usr/local/share/locd/apps.d")
            #expect(vendor == [])
        }

        @Test("install: every unit's Documentation= names a man page make install installs (systemd-analyze --man=yes)")
        func documentation() throws {
            let analyze = "/usr/bin/systemd-analyze"
            try #require(FileManager.default.isExecutableFile(atPath: analyze), "systemd-analyze is missing")
            let scratch = try TemporaryDirectory(prefix: "locd-systemd").path
            defer { try? FileManager.default.removeItem(atPath: scratch) }
            let build = scratch + "/build"
            let stage = scratch + "/stage"
            try FileManager.default.createDirectory(atPath: build, withIntermediateDirectories: true)
            for binary in ["locd", "locd-geoclue", "locd-network"] {
                try FileManager.default.copyItem(atPath: "/bin/true", toPath: build + "/" + binary)
            }
            let installed = try run(
                "/usr/bin/make",
                ["-s", "-f", "systemd/install.mk", "install", "DESTDIR=" + stage, "BUILD=" + build],
                directory: Repository.root()
            )
            #expect(installed.status == 0, "\(installed.output)")
            let units = stage + "/usr/lib/systemd/system"
            let names = try FileManager.default.contentsOfDirectory(atPath: units).filter { $0.hasPrefix("locd") }
            #expect(names.count >= 6, "\(names)")
            // verify also checks each ExecStart= binary: the staged ones, not /usr/bin's.
            for name in names {
                let text = try String(contentsOfFile: units + "/" + name, encoding: .utf8)
                try text.replacingOccurrences(of: "=/usr/bin/locd", with: "=" + stage + "/usr/bin/locd")
                    .write(toFile: units + "/" + name, atomically: true, encoding: .utf8)
            }
            let verified = try run(
                analyze,
                ["verify", "--man=yes"] + names.sorted().map { units + "/" + $0 },
                environment: ["MANPATH": stage + "/usr/share/man"]
            )
            // verify runs `man PAGE` for each: "Command 'man locd(8)' failed with code 16" when it finds none. (The
            // gpsd proxy's systemd-socket-proxyd(8) is systemd's, installed or not, and not checked here.)
            let missing = verified.lines.filter {
                $0.contains("Command 'man locd") || $0.contains("Command 'man locctl")
            }
            #expect(missing.isEmpty, "\(missing.joined(separator: "\n"))")
            // The same check where no page is installed finds them missing: it did look.
            let bare = try run(
                analyze,
                ["verify", "--man=yes", units + "/locd.service"],
                environment: ["MANPATH": scratch + "/build"]
            )
            #expect(bare.output.contains("Command 'man locd(8)' failed"), "\(bare.output)")
        }
    }
}
