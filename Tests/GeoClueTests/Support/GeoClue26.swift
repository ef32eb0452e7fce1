import Foundation
import LocationTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The real GeoClue 2.6 (Debian's geoclue-2.0) on a private system bus, so that the scenarios the tests run against
/// locd-geoclue are also run against the program whose contract it copies. GeoClue's sources are the project's
/// NMEA feeder (Fixtures/nmea_feeder.py: Berlin, exact requests) and geolocation mock (Fixtures/geolocate_mock.py:
/// Berlin at 5000 m, city requests); its demo agent is registered, since GeoClue refuses clients of a user with no
/// agent.
///
/// GeoClue reads only /etc/geoclue/geoclue.conf, so it runs in a mount namespace of its own in which the project's
/// Fixtures/geoclue.conf is bind-mounted over that file: that needs root.
final class GeoClue26 {
    static let daemon = "/usr/libexec/geoclue"
    static let demoAgent = "/usr/libexec/geoclue-2.0/demos/agent"
    static let configuration = "/etc/geoclue/geoclue.conf"

    /// Why the real GeoClue cannot run here, or nil when it can.
    static var unavailable: String? {
        let files = FileManager.default
        if !files.isExecutableFile(atPath: daemon) { return "GeoClue 2.6 is not installed (Debian: geoclue-2.0)" }
        if !files.isExecutableFile(atPath: demoAgent) {
            return "GeoClue's demo agent is not installed (geoclue-2-demo)"
        }
        if !files.fileExists(atPath: configuration) { return "\(configuration) is missing, so it cannot be replaced" }
        if !files.isExecutableFile(atPath: "/usr/bin/unshare") { return "unshare is not installed (util-linux)" }
        if getuid() != 0 { return "needs root, to bind-mount the test's geoclue.conf over \(configuration)" }
        return nil
    }

    private let temporary: TemporaryDirectory
    var directory: String { temporary.path }
    let busAddress: String
    private var running: [ScriptProcess] = []

    init() throws {
        temporary = try TemporaryDirectory(prefix: "geoclue26")
        busAddress = "unix:path=" + temporary.at("bus")
        try startBus()
        let feeder = try start(
            "nmea-feeder",
            ["/usr/bin/python3", GeoClueHarness.fixture("nmea_feeder.py"), temporary.at("nmea")]
        )
        guard feeder.waitFor("listening") else { throw HarnessFailure("the NMEA feeder did not start: \(feeder.log)") }
        let web = try start("geolocate-mock", ["/usr/bin/python3", GeoClueHarness.fixture("geolocate_mock.py")])
        guard web.waitFor("port "),
            let port = web.log.split(separator: "\n").first?.split(separator: " ").last
        else { throw HarnessFailure("the geolocation mock did not start: \(web.log)") }
        let geoclue = try startGeoClue(url: "http://127.0.0.1:\(port)/v1/geolocate")
        let agent = try start("agent", [Self.demoAgent])
        guard geoclue.waitFor("New agent for user ID") else {
            throw HarnessFailure("GeoClue's demo agent did not register: \(agent.log)\n\(geoclue.log)")
        }
    }

    deinit {
        for program in running.reversed() { program.kill9() }
        temporary.remove()
    }

    var busEnvironment: [String: String] { ["DBUS_SYSTEM_BUS_ADDRESS": busAddress] }

    /// Starts a program on the bus that runs until the harness ends; its output goes to `name`.log.
    private func start(
        _ name: String,
        _ arguments: [String],
        environment: [String: String] = [:]
    ) throws
        -> ScriptProcess
    {
        let program = try ScriptProcess(
            arguments,
            environment: busEnvironment.merging(environment) { $1 },
            logPath: "\(directory)/\(name).log"
        )
        running.append(program)
        return program
    }

    private func startBus() throws {
        let template = try String(contentsOfFile: GeoClueHarness.fixture("system-bus.conf"), encoding: .utf8)
        let config = temporary.at("system-bus.conf")
        try template.replacingOccurrences(of: "@SOCKET@", with: temporary.at("bus"))
            .write(toFile: config, atomically: true, encoding: .utf8)
        let bus = try start(
            "bus",
            ["/usr/bin/dbus-daemon", "--config-file=" + config, "--nofork", "--print-address=1"]
        )
        guard bus.waitFor("unix:path=") else { throw HarnessFailure("dbus-daemon did not start: \(bus.log)") }
    }

    /// GeoClue with the test's configuration in its own mount namespace; it logs (G_MESSAGES_DEBUG) what the
    /// harness waits for. Ready once it owns org.freedesktop.GeoClue2.
    private func startGeoClue(url: String) throws -> ScriptProcess {
        let template = try String(contentsOfFile: GeoClueHarness.fixture("geoclue.conf"), encoding: .utf8)
        let config = temporary.at("geoclue.conf")
        try template.replacingOccurrences(of: "@NMEA@", with: temporary.at("nmea"))
            .replacingOccurrences(of: "@URL@", with: url)
            .write(toFile: config, atomically: true, encoding: .utf8)
        let geoclue = try start(
            "geoclue",
            [
                "/usr/bin/unshare", "--mount", "--propagation", "private", "/bin/sh", "-c",
                "mount --bind \"$0\" \(Self.configuration) && exec \(Self.daemon) --timeout 0", config,
            ],
            environment: ["G_MESSAGES_DEBUG": "all"]
        )
        let owned = try eventually(timeout: 20, every: 0.05) {
            guard geoclue.process.isRunning else { return false }
            return try Command.run(["/usr/bin/busctl", "--address=" + busAddress, "status", "org.freedesktop.GeoClue2"])
                .status == 0
        }
        guard owned else { throw HarnessFailure("GeoClue did not take its name: \(geoclue.log)") }
        return geoclue
    }
}
