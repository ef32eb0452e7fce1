import Foundation
import LocationGeoClue
import LocationTestSupport
import Testing

/// A whitelisted GeoClue agent is the program its process runs, not the id it announces (SEMANTICS G34).
@Suite("GeoClue2: a whitelisted agent is verified by its program", .serialized)
struct GeoClueAgentIdentityTests {
    /// Debian 12's `[agent]` section of `/etc/geoclue/geoclue.conf`.
    static let debianWhitelist =
        "[agent]\nwhitelist=geoclue-demo-agent;gnome-shell;io.elementary.desktop.agent-geoclue2;sm.puri.Phosh;lipstick\n"

    @Test(
        "G34, G11: nobody's script saying AddAgent(\"gnome-shell\") under Debian's whitelist is refused, and never answers a prompt",
        .enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"))
    )
    func scriptClaimingGnomeShellIsRefused() throws {
        let harness = try GeoClueHarness(agentWait: 1, geoClueConfiguration: Self.debianWhitelist)
        let impostor = try ScriptProcess(
            harness.unprivileged(GeoClueHarness.ordinaryUID)
                + ["/usr/bin/python3", GeoClueHarness.fixture("geoclue_agent.py"), "allow:8", "8"],
            environment: harness.busEnvironment.merging(["GEOCLUE_AGENT_ID": "gnome-shell", "HOME": "/nonexistent"]) {
                $1
            },
            logPath: harness.directory + "/impostor.log"
        )
        defer { impostor.closeInput() }
        #expect(impostor.waitFor("\"refused\""), "\(impostor.log)")
        #expect(impostor.log.contains("gnome-shell not allowed to act as agent"), "\(impostor.log)")
        #expect(impostor.log.contains("--agent-executable"), "\(impostor.log)")
        // nobody's own client: no agent is there to ask, so it is not located, and the script was never asked.
        let result = try harness.python(["where-am-i", "test.allowed", "8"], asUID: GeoClueHarness.ordinaryUID)
        let reply = try #require(result.objects.first, "\(result.output)\(result.errors)")
        #expect(reply["Latitude"] == nil, "the impostor's answer located the app: \(reply)")
        #expect(!impostor.log.contains("\"asked\""), "\(impostor.log)")
        let record = try GeoClueAgentTests.authorization(harness, "test.allowed", of: GeoClueHarness.ordinaryUID)
        #expect(record["status"] as? String != "authorizedWhenInUse", "\(record)")
    }

    @Test(
        "G34: the same script is taken as gnome-shell when --agent-executable names its interpreter, and its answer decides"
    )
    func namedProgramIsTaken() throws {
        let harness = try GeoClueHarness(
            agentWait: 1,
            geoClueConfiguration: Self.debianWhitelist,
            agentExecutables: ["gnome-shell": GeoClueHarness.realPath("/usr/bin/python3")]
        )
        let agent = try ScriptProcess(
            ["/usr/bin/python3", GeoClueHarness.fixture("geoclue_agent.py"), "allow:8", "8"],
            environment: harness.busEnvironment.merging(["GEOCLUE_AGENT_ID": "gnome-shell"]) { $1 },
            logPath: harness.directory + "/gnome-shell.log"
        )
        defer { agent.closeInput() }
        #expect(agent.waitFor("\"registered\""), "\(agent.log)")
        let result = try harness.python(["where-am-i", "test.allowed", "8"])
        let reply = try #require(result.objects.first, "\(result.output)\(result.errors)")
        #expect(reply["Latitude"] as? Double == GeoClueHarness.latitude, "\(reply)")
        #expect(agent.log.contains("\"asked\""), "\(agent.log)")
    }
}

/// The programs locd-geoclue checks a whitelisted agent against (G34), without a bus.
@Suite("GeoClue2: the agents' programs")
struct AgentProgramTests {
    @Test(
        "G34: the built-in programs of Debian's agents; --agent-executable ID=PATH replaces an id's, resolved with realpath"
    )
    func programs() throws {
        let directory = try TemporaryDirectory(prefix: "agents")
        defer { directory.remove() }
        let conf = try directory.write("geoclue.conf", GeoClueAgentIdentityTests.debianWhitelist)
        let python = "/usr/bin/python3"
        let whitelist = try #require(try AgentWhitelist.load(main: conf, executables: ["lipstick": [python]]))
        #expect(whitelist.executables["gnome-shell"] == ["/usr/bin/gnome-shell"])
        #expect(whitelist.executables["geoclue-demo-agent"] == ["/usr/libexec/geoclue-2.0/demos/agent"])
        #expect(whitelist.executables["sm.puri.Phosh"] == ["/usr/libexec/phosh"])
        #expect(whitelist.executables["io.elementary.desktop.agent-geoclue2"] == nil)
        // The option's path, as /proc/PID/exe shows the program: links resolved.
        #expect(whitelist.resolvedExecutables["lipstick"] == [GeoClueHarness.realPath(python)])
        // A program that is not installed matches nothing.
        let missing = AgentWhitelist(ids: ["x"], file: conf, executables: ["x": [directory.at("absent")]])
        #expect(missing.resolvedExecutables["x"] == [])
        #expect(AgentWhitelist.option("gnome-shell=/usr/bin/gnome-shell")! == ("gnome-shell", "/usr/bin/gnome-shell"))
        #expect(AgentWhitelist.option("gnome-shell") == nil)
        #expect(AgentWhitelist.option("gnome-shell=bin/gnome-shell") == nil)
        #expect(AgentWhitelist.option("=/usr/bin/gnome-shell") == nil)
    }
}
