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
            ]
            for file in expected {
                let attributes = try? FileManager.default.attributesOfItem(atPath: stage + file.path)
                let mode = (attributes?[.posixPermissions] as? NSNumber)?.intValue
                #expect(mode == file.mode, "\(file.path)")
            }
            #expect(!FileManager.default.fileExists(atPath: stage + "/usr/local/bin/locctl"))
            let service = try String(contentsOfFile: stage + "/usr/lib/systemd/system/locd.service", encoding: .utf8)
            #expect(service.contains("ExecStart=/usr/local/bin/locd --config /etc/locd/locd.toml"))
        }
    }
}
