import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The owners of `org.freedesktop.GeoClue2` the GeoClue scenario measures, one at a time on the same bus.
enum GeoClueTarget: CaseIterable {
    /// `locd-bench-trivial`: the six calls answered and nothing else; what the bus and the clients allow.
    case trivial
    /// `locd-bench-trivial --signals`: the six calls answered with the signals GeoClue's contract makes every service
    /// send (PropertiesChanged, a Location object and `LocationUpdated`), a client's to its owner alone as
    /// locd-geoclue sends them (SEMANTICS G4), and no work of its own: the floor for a service that keeps the contract.
    case contract
    /// `locd-geoclue` in front of a `locd`.
    case locd
    /// Debian's GeoClue 2.6 (`/usr/libexec/geoclue`) with its demo agent.
    case geoclue

    var label: String {
        switch self {
        case .trivial: "trivial sd-bus service"
        case .contract: "trivial + GeoClue's signals"
        case .locd: "locd + locd-geoclue"
        case .geoclue: "GeoClue " + (GeoClueTarget.geoclueVersion ?? "2.6")
        }
    }

    static let geoclueBinary = "/usr/libexec/geoclue"
    static let demoAgent = "/usr/libexec/geoclue-2.0/demos/agent"
    static let geoclueConfig = "/etc/geoclue/geoclue.conf"

    /// What `geoclue --version` prints, or `nil` when it does not run.
    static let geoclueVersion: String? = {
        guard FileManager.default.isExecutableFile(atPath: geoclueBinary) else { return nil }
        let process = Process()
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: geoclueBinary)
        process.arguments = ["--version"]
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let version = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return process.terminationStatus == 0 && !version.isEmpty ? version : nil
    }()

    /// Why GeoClue cannot be measured here, or `nil` when it can.
    static var geoclueAbsence: String? {
        guard FileManager.default.isExecutableFile(atPath: geoclueBinary) else {
            return "GeoClue is not installed (no \(geoclueBinary); apt-get install geoclue-2.0)"
        }
        guard FileManager.default.isExecutableFile(atPath: demoAgent) else {
            return "GeoClue's demo agent is not installed (no \(demoAgent); apt-get install geoclue-2-demo): "
                + "GeoClue answers no CreateClient before an agent registers"
        }
        guard FileManager.default.fileExists(atPath: geoclueConfig) else {
            return "no \(geoclueConfig) to lay the benchmark's configuration over"
        }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") else {
            return "no /usr/bin/unshare to give GeoClue a configuration of the benchmark's own"
        }
        return nil
    }

    /// GeoClue's configuration for the benchmark: the demo agent allowed, every source off but the NMEA socket
    /// (nobody serves it, so GeoClue does no source work), and the churn's app id allowed as a system app.
    static func geoclueConfiguration(nmeaSocket: String) -> String {
        """
        [agent]
        whitelist=geoclue-demo-agent;gnome-shell
        [network-nmea]
        enable=true
        nmea-socket=\(nmeaSocket)
        [3g]
        enable=false
        [cdma]
        enable=false
        [modem-gps]
        enable=false
        [wifi]
        enable=false
        submit-data=false
        [compass]
        enable=false
        [gnome-datetime-panel]
        allowed=true
        system=true
        users=

        """
    }

    /// The processes that serve the name, started on `bus`; the caller waits for the name to be owned.
    func start(bus: PrivateBus, directory: String, locdSocket: String?) throws -> [ChildProcess] {
        switch self {
        case .trivial, .contract:
            return [
                try ChildProcess(
                    name: "locd-bench-trivial",
                    [try Self.beside("locd-bench-trivial")] + (self == .contract ? ["--signals"] : []),
                    environment: bus.environment,
                    logPath: directory + (self == .contract ? "/contract.log" : "/trivial.log")
                )
            ]
        case .locd:
            guard let locdSocket else { throw BenchError.failed("locd-geoclue needs a locd") }
            return [
                try ChildProcess(
                    name: "locd-geoclue",
                    [try Self.beside("locd-geoclue"), "--socket", locdSocket],
                    environment: bus.environment,
                    logPath: directory + "/locd-geoclue.log"
                )
            ]
        case .geoclue:
            return [try Self.startGeoClue(bus: bus, directory: directory)]
        }
    }

    /// GeoClue reads /etc/geoclue/geoclue.conf only: the benchmark's configuration is bind-mounted over it in a
    /// mount namespace of GeoClue's own (as root, or in a user namespace that maps this user to root).
    private static func startGeoClue(bus: PrivateBus, directory: String) throws -> ChildProcess {
        let config = directory + "/geoclue.conf"
        try geoclueConfiguration(nmeaSocket: directory + "/nmea.sock").write(
            toFile: config,
            atomically: true,
            encoding: .utf8
        )
        let namespace = getuid() == 0 ? ["-m"] : ["-r", "-m"]
        return try ChildProcess(
            name: "GeoClue",
            ["/usr/bin/unshare"] + namespace + [
                "--propagation", "private", "/bin/sh", "-c",
                "mount --bind '\(config)' \(geoclueConfig) && exec \(geoclueBinary) --timeout 0",
            ],
            environment: bus.environment,
            logPath: directory + "/geoclue.log"
        )
    }

    /// GeoClue's demo agent, once GeoClue owns its name (it registers with AddAgent when it starts).
    static func startAgent(bus: PrivateBus, directory: String) throws -> ChildProcess {
        try ChildProcess(
            name: "GeoClue demo agent",
            [demoAgent],
            environment: bus.environment,
            logPath: directory + "/agent.log"
        )
    }

    /// An executable built beside locd-bench (`.build/release`).
    static func beside(_ name: String) throws -> String {
        let here = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        let path = here.appendingPathComponent(name).path
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw BenchError.failed("no \(name) beside locd-bench at \(path): swift build -c release --product \(name)")
        }
        return path
    }
}
