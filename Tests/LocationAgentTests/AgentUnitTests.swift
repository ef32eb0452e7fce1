import Foundation
import LocationTestSupport
import Testing

/// How locd-agent is started in a session (SEMANTICS N1): the files under systemd/ that `make install` installs.
@Suite("locd-agent: its unit, autostart entry and bus activation")
struct AgentUnitTests {
    private static let systemd = Repository.root() + "/systemd"

    /// `key=value` lines of a file, comments and section headers left out.
    private static func assignments(_ relativePath: String) throws -> [String] {
        try String(contentsOfFile: systemd + "/" + relativePath, encoding: .utf8).split(separator: "\n")
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") && !$0.hasPrefix("[") }
    }

    @Test("N1: the user unit is part of the graphical session, owns io.locd.Agent, and restarts on failure")
    func userUnit() throws {
        let lines = try Self.assignments("user/locd-agent.service")
        for expected in [
            "PartOf=graphical-session.target", "After=graphical-session.target", "WantedBy=graphical-session.target",
            "Type=dbus", "BusName=io.locd.Agent", "ExecStart=/usr/bin/locd-agent", "Restart=on-failure",
        ] {
            #expect(lines.contains(expected), "locd-agent.service lacks \(expected)")
        }
    }

    @Test(
        "N1: systemd-analyze verify --user accepts the user unit",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze"))
    )
    func verify() throws {
        let directory = try TemporaryDirectory(prefix: "agent-unit")
        defer { directory.remove() }
        let text = try String(contentsOfFile: Self.systemd + "/user/locd-agent.service", encoding: .utf8)
        // verify checks that the binary exists, and locd-agent is not installed here.
        let unit = try directory.write(
            "units/locd-agent.service",
            text.replacingOccurrences(of: "ExecStart=/usr/bin/locd-agent", with: "ExecStart=/bin/true")
        )
        try FileManager.default.createDirectory(atPath: directory.at("runtime"), withIntermediateDirectories: true)
        let result = try ChildProcess(
            ["/usr/bin/systemd-analyze", "verify", "--user", "--man=no", unit],
            environment: ["XDG_RUNTIME_DIR": directory.at("runtime")]
        )
        #expect(result.status == 0 && !result.output.contains("locd-agent"), "\(result.output)")
    }

    @Test("N1: the autostart entry runs locd-agent where no systemd user manager does, and a systemd session skips it")
    func autostart() throws {
        let lines = try Self.assignments("io.locd.Agent.desktop")
        for expected in ["Type=Application", "Exec=/usr/bin/locd-agent", "X-systemd-skip=true", "NoDisplay=true"] {
            #expect(lines.contains(expected), "io.locd.Agent.desktop lacks \(expected)")
        }
        let bus = try Self.assignments("io.locd.Agent.service")
        #expect(bus == ["Name=io.locd.Agent", "Exec=/usr/bin/locd-agent", "SystemdService=locd-agent.service"])
        let install = try String(contentsOfFile: Self.systemd + "/install.mk", encoding: .utf8)
        for file in ["user/locd-agent.service", "io.locd.Agent.service", "io.locd.Agent.desktop", "man/locd-agent.1"] {
            #expect(install.contains(file) || (file.hasPrefix("man/") && install.contains("locd-agent.1")), "\(file)")
        }
    }
}
