import Foundation
import LocationTestSupport
import Testing

@testable import LocationConfiguration
@testable import LocationCore

/// The daemon configuration, `locd.toml` and its drop-ins (SEMANTICS §11).
@Suite("Daemon configuration")
struct DaemonConfigurationTests {
    private let file = "/etc/locd/locd.toml"

    /// The one-line message that loading `text` as `/etc/locd/locd.toml` fails with.
    private func failure(_ text: String) -> String? { configurationFailure(text, file: file) }

    // MARK: Defaults

    @Test("§11: the built-in defaults are the values SEMANTICS lists")
    func defaults() {
        let configuration = DaemonConfiguration()
        #expect(configuration.socket == nil)
        #expect(configuration.stateDirectory == "/var/lib/locd")
        #expect(configuration.appsDirectories == ["/usr/share/locd/apps.d", "/etc/locd/apps.d"])
        #expect(configuration.allowUnknownApps == false)
        #expect(configuration.adminGroup == "locd")
        #expect(configuration.restrictedApps == [])

        #expect(configuration.lifecycle.backgroundGrace == .seconds(10))
        #expect(configuration.lifecycle.relaunchWindow == .seconds(10))
        #expect(configuration.lifecycle.relaunchAdopt == .seconds(5))
        #expect(configuration.lifecycle.promptTimeout == .seconds(120))

        #expect(configuration.limits.maxSessionsPerApp == 64)
        #expect(configuration.limits.maxClientsPerApp == 32)
        #expect(configuration.limits.maxConnections == 4096)
        #expect(configuration.limits.maxConnectionsPerUID == 256)
        #expect(configuration.limits.adminReserve == 16)
        #expect(configuration.limits.idleTimeout == .seconds(10))
        #expect(configuration.limits.maxMessageBytes == 1_048_576)
        #expect(configuration.limits.maxQueuedUpdates == 64)
        #expect(configuration.limits.maxWriteBuffer == 4_194_304)
        #expect(configuration.limits.maxPendingWrites == 65_536)
        #expect(configuration.limits.maxHeldMessages == 16_384)
        #expect(configuration.limits.maxPipelinedCalls == 64)
        #expect(configuration.limits.maxConditionsPerApp == 1000)
        #expect(configuration.limits.maxAppsPerUID == 128)

        #expect(configuration.provider.kind == .fixedPoint)
        #expect(configuration.provider.latitude == 35.681236)
        #expect(configuration.provider.longitude == 139.767125)
        #expect(configuration.provider.host == "127.0.0.1")
        #expect(configuration.provider.port == 2947)

        // The core's own default has no agent-wait (the seeds' rules assume a dialog is always there); the
        // daemon's is 5 s (P14).
        #expect(configuration.core == CoreConfiguration(agentWait: .seconds(5)))
    }

    @Test("§11: an empty file leaves every default in place")
    func emptyFileIsDefaults() throws {
        #expect(try DaemonConfiguration.parse(text: "# nothing here\n", file: file) == DaemonConfiguration())
    }

    @Test("§11: the default socket is /run/locd/io.locd for root and $XDG_RUNTIME_DIR/locd/io.locd for a user")
    func defaultSocket() throws {
        let environment = ["XDG_RUNTIME_DIR": "/run/user/1000"]
        #expect(DaemonConfiguration.defaultSocket(uid: 0, environment: environment) == "/run/locd/io.locd")
        #expect(DaemonConfiguration.defaultSocket(uid: 1000, environment: environment) == "/run/user/1000/locd/io.locd")
        #expect(DaemonConfiguration.defaultSocket(uid: 1000, environment: [:]) == "/run/user/1000/locd/io.locd")
        #expect(
            DaemonConfiguration.defaultSocket(uid: 1000, environment: ["XDG_RUNTIME_DIR": "/tmp/rt/"])
                == "/tmp/rt/locd/io.locd"
        )
        let configured = try DaemonConfiguration.parse(text: #"socket = "/tmp/locd.sock""#, file: file)
        #expect(configured.socketPath(uid: 1000, environment: environment) == "/tmp/locd.sock")
    }

    // MARK: Values

    @Test("§11: every key is read into the configuration, and core carries the rules' values")
    func everyKeyIsRead() throws {
        let configuration = try DaemonConfiguration.parse(
            text: """
                socket = "/tmp/locd/io.locd"
                state-dir = "/tmp/locd/state"
                apps-dirs = ["/opt/apps.d"]
                allow-unknown-apps = true
                admin-group = "wheel"
                restricted-apps = ["com.ex.kids"]

                [lifecycle]
                background-grace = 2.5
                relaunch-window = 3
                relaunch-adopt = 1
                prompt-timeout = 30
                agent-wait = 0

                [limits]
                max-sessions-per-app = 4
                max-clients-per-app = 2
                max-connections = 10
                max-connections-per-uid = 3
                admin-reserve = 0
                idle-timeout = 0.25
                max-message-bytes = 4096
                max-queued-updates = 8
                max-write-buffer = 65536
                max-pending-writes = 100
                max-held-messages = 16
                max-pipelined-calls = 16
                max-conditions-per-app = 50
                max-apps-per-uid = 12

                [provider]
                kind = "gpsd"
                host = "localhost"
                port = 2948
                """,
            file: file
        )
        #expect(configuration.socket == "/tmp/locd/io.locd")
        #expect(configuration.stateDirectory == "/tmp/locd/state")
        #expect(configuration.appsDirectories == ["/opt/apps.d"])
        #expect(configuration.adminGroup == "wheel")
        #expect(configuration.limits.maxConnections == 10)
        #expect(configuration.limits.maxConnectionsPerUID == 3)
        #expect(configuration.limits.adminReserve == 0)
        #expect(configuration.limits.idleTimeout == .seconds(0.25))
        #expect(configuration.limits.maxMessageBytes == 4096)
        #expect(configuration.limits.maxQueuedUpdates == 8)
        #expect(configuration.limits.maxWriteBuffer == 65536)
        #expect(configuration.limits.maxPendingWrites == 100)
        #expect(configuration.limits.maxHeldMessages == 16)
        #expect(configuration.limits.maxPipelinedCalls == 16)
        #expect(configuration.limits.maxConditionsPerApp == 50)
        #expect(configuration.limits.maxAppsPerUID == 12)
        #expect(configuration.provider.kind == .gpsd)
        #expect(configuration.provider.host == "localhost")
        #expect(configuration.provider.port == 2948)
        #expect(
            configuration.core
                == CoreConfiguration(
                    backgroundGrace: .seconds(2.5),
                    relaunchWindow: .seconds(3),
                    relaunchAdopt: .seconds(1),
                    promptTimeout: .seconds(30),
                    agentWait: .seconds(0),
                    maxSessionsPerApp: 4,
                    maxClientsPerApp: 2,
                    maxConditionsPerApp: 50,
                    maxAppsPerUID: 12,
                    allowUnknownApps: true,
                    restrictedApps: ["com.ex.kids"]
                )
        )
    }

    @Test("§11: the static and nmea providers read their own keys")
    func providerKinds() throws {
        let fixed = try DaemonConfiguration.parse(
            text: "[provider]\nkind = \"static\"\nlatitude = -33\nlongitude = 151.2\naltitude = 58.5\naccuracy = 0",
            file: file
        )
        #expect(fixed.provider.kind == .fixedPoint)
        #expect(fixed.provider.latitude == -33)
        #expect(fixed.provider.longitude == 151.2)
        #expect(fixed.provider.altitude == 58.5)
        #expect(fixed.provider.accuracy == 0)

        let nmea = try DaemonConfiguration.parse(
            text: "[provider]\nkind = \"nmea\"\nfile = \"route.nmea\"\nspeed-factor = 4",
            file: file
        )
        #expect(nmea.provider.kind == .nmea)
        #expect(nmea.provider.file == "route.nmea")
        #expect(nmea.provider.speedFactor == 4)
    }

    @Test("§11: the gpsd provider reads a Unix socket path, unset by default, beside host and port")
    func gpsdSocket() throws {
        #expect(DaemonConfiguration().provider.socket == nil)
        let configuration = try DaemonConfiguration.parse(
            text: "[provider]\nkind = \"gpsd\"\nhost = \"::1\"\nport = 2948\nsocket = \"/run/locd/gpsd.sock\"\n",
            file: file
        )
        #expect(configuration.provider.kind == .gpsd)
        #expect(configuration.provider.socket == "/run/locd/gpsd.sock")
        #expect(configuration.provider.host == "::1")
        #expect(configuration.provider.port == 2948)
    }

    @Test("§11: a gpsd socket that is empty, not a string, or too long for a socket address names file and key")
    func gpsdSocketErrors() {
        #expect(
            failure("[provider]\nsocket = \"\"")
                == "/etc/locd/locd.toml:2: key provider.socket: expected a non-empty string, found \"\""
        )
        #expect(
            failure("[provider]\nkind = \"gpsd\"\nsocket = 2947")
                == "/etc/locd/locd.toml:3: key provider.socket: expected a path, found integer"
        )
        let path = "/" + String(repeating: "g", count: 107)
        #expect(
            failure("[provider]\nsocket = \"\(path)\"")
                == "/etc/locd/locd.toml:2: key provider.socket: expected a socket path of at most 107 bytes, "
                + "found 108 bytes"
        )
    }

    @Test("§11: kind = \"nmea\" needs a file, reported where the kind was chosen")
    func nmeaNeedsFile() {
        #expect(
            failure("[provider]\nkind = \"nmea\"\n")
                == #"/etc/locd/locd.toml:2: key provider.file: "#
                + #"required when kind = "nmea": the NMEA 0183 file to replay"#
        )
    }

    // MARK: Wrong types

    @Test("§11: a wrong type at the top level names file, line, key and what is allowed")
    func wrongTypeTopLevel() {
        #expect(
            failure("state-dir = \"/var/lib/locd\"\nallow-unknown-apps = \"yes\"\n")
                == "/etc/locd/locd.toml:2: key allow-unknown-apps: expected true or false, found string"
        )
        #expect(
            failure("apps-dirs = \"/etc/locd/apps.d\"")
                == "/etc/locd/locd.toml:1: key apps-dirs: expected an array of paths, found string"
        )
    }

    @Test("I13: no broker by default; [[broker]] tables read a user and an optional absolute executable")
    func brokers() throws {
        #expect(DaemonConfiguration().brokers == [])
        let configuration = try DaemonConfiguration.parse(
            text: """
                [[broker]]
                user = "locd-geoclue"
                executable = "/usr/libexec/locd-geoclue"
                [[broker]]
                user = "998"
                """,
            file: file
        )
        #expect(
            configuration.brokers == [
                Broker(user: "locd-geoclue", executable: "/usr/libexec/locd-geoclue"), Broker(user: "998"),
            ]
        )
        let expected = "expected an absolute path of the broker's program (a link to it is followed)"
        for bad in ["locd-geoclue", "/", "/usr/libexec/", "/usr//libexec/x", "/usr/../bin/x", "/usr/./x"] {
            #expect(
                failure("[[broker]]\nuser = \"x\"\nexecutable = \"\(bad)\"")
                    == "/etc/locd/locd.toml:3: key broker[1].executable: \(expected), found \"\(bad)\""
            )
        }
        #expect(
            failure("[[broker]]\nexecutable = \"/usr/bin/x\"")
                == "/etc/locd/locd.toml:1: key broker[1]: each [[broker]] table needs a user: the user name or uid the "
                + "broker runs as"
        )
        #expect(
            failure("[[broker]]\nuser = \"x\"\npath = \"/usr/bin/x\"")
                == "/etc/locd/locd.toml:3: key broker[1].path: unknown key; allowed at the top level: user, executable"
        )
    }

    @Test("I13: the brokers list of executables is refused with what to write instead")
    func retiredBrokers() {
        #expect(
            failure("brokers = [\"/usr/bin/locd-geoclue\"]")
                == "/etc/locd/locd.toml:1: key brokers: brokers named programs, which any user can run; name the "
                + "broker's user in a [[broker]] table instead: [[broker]] user = \"locd-geoclue\" executable = "
                + "\"/usr/bin/locd-geoclue\""
        )
    }

    @Test("I13: a later file's [[broker]] tables replace an earlier file's, and broker = [] removes them")
    func brokersInDropIns() throws {
        try TemporaryDirectory.with { directory in
            let main = try directory.write("locd.toml", "[[broker]]\nuser = \"a\"\n")
            try directory.write("locd.toml.d/10-b.toml", "[[broker]]\nuser = \"b\"\n")
            #expect(try DaemonConfiguration.loadOwn(path: main).brokers == [Broker(user: "b")])
            try directory.write("locd.toml.d/20-none.toml", "broker = []\n")
            #expect(try DaemonConfiguration.loadOwn(path: main).brokers == [])
        }
    }

    @Test("I11: unknown-brokered-apps is ask by default, takes ask or deny, and reaches the core")
    func unknownBrokeredApps() throws {
        #expect(DaemonConfiguration().unknownBrokeredApps == .ask)
        #expect(DaemonConfiguration().core.unknownBrokeredApps == .ask)
        let deny = try DaemonConfiguration.parse(text: "unknown-brokered-apps = \"deny\"\n", file: file)
        #expect(deny.unknownBrokeredApps == .deny)
        #expect(deny.core.unknownBrokeredApps == .deny)
        let ask = try DaemonConfiguration.parse(text: "unknown-brokered-apps = \"ask\"\n", file: file, over: deny)
        #expect(ask.unknownBrokeredApps == .ask)
        #expect(
            failure("\nunknown-brokered-apps = \"allow\"")
                == "/etc/locd/locd.toml:2: key unknown-brokered-apps: expected \"ask\" or \"deny\", found \"allow\""
        )
        #expect(
            failure("unknown-brokered-apps = true")
                == "/etc/locd/locd.toml:1: key unknown-brokered-apps: expected \"ask\" or \"deny\", found true"
        )
    }

    @Test("§11: a wrong type in [lifecycle] names file, line, key and what is allowed")
    func wrongTypeLifecycle() {
        #expect(
            failure("[lifecycle]\nrelaunch-window = 10\nbackground-grace = \"10s\"\n")
                == "/etc/locd/locd.toml:3: key lifecycle.background-grace: "
                + "expected a number of seconds > 0, found string"
        )
        #expect(
            failure("lifecycle = 5")
                == "/etc/locd/locd.toml:1: key lifecycle: expected a table of durations, found integer"
        )
    }

    @Test("§11: a wrong type in [limits] names file, line, key and what is allowed")
    func wrongTypeLimits() {
        #expect(
            failure("[limits]\n\nmax-connections = 1.5\n")
                == "/etc/locd/locd.toml:3: key limits.max-connections: expected a positive integer, "
                + "found floating-point number"
        )
    }

    @Test("§11: a wrong type in [provider] names file, line, key and what is allowed")
    func wrongTypeProvider() {
        #expect(
            failure("[provider]\nkind = \"static\"\nlatitude = \"north\"\n")
                == "/etc/locd/locd.toml:3: key provider.latitude: "
                + "expected degrees of latitude in [-90, 90], found string"
        )
        #expect(
            failure("[provider]\nkind = 1\n")
                == #"/etc/locd/locd.toml:2: key provider.kind: expected one of "static", "nmea", "gpsd", "network", found integer"#
        )
    }

    // MARK: Out of range

    @Test("§11: an out-of-range duration names file, line, key and what is allowed")
    func outOfRangeLifecycle() {
        let text = """
            socket = "/run/locd/io.locd"
            state-dir = "/var/lib/locd"
            apps-dirs = ["/usr/share/locd/apps.d", "/etc/locd/apps.d"]
            allow-unknown-apps = false
            admin-group = "locd"
            restricted-apps = []

            [lifecycle]
            relaunch-window = 10.0
            relaunch-adopt = 5.0
            prompt-timeout = 120.0
            background-grace = -1
            """
        #expect(
            failure(text)
                == "/etc/locd/locd.toml:12: key lifecycle.background-grace: expected a number of seconds > 0, found -1"
        )
        #expect(
            failure("[lifecycle]\nprompt-timeout = 0.0")
                == "/etc/locd/locd.toml:2: key lifecycle.prompt-timeout: expected a number of seconds > 0, found 0.0"
        )
        #expect(
            failure("[lifecycle]\nprompt-timeout = inf")
                == "/etc/locd/locd.toml:2: key lifecycle.prompt-timeout: expected a number of seconds <= 1000000000, "
                + "found inf"
        )
        #expect(
            failure("[lifecycle]\nprompt-timeout = nan")
                == "/etc/locd/locd.toml:2: key lifecycle.prompt-timeout: expected a number of seconds > 0, found nan"
        )
    }

    @Test("P14: agent-wait defaults to 5 s, 0 is no wait, and a negative one is refused saying what 0 means")
    func agentWait() throws {
        #expect(DaemonConfiguration().core.agentWait == .seconds(5))
        let none = try DaemonConfiguration.parse(text: "[lifecycle]\nagent-wait = 0", file: "/etc/locd/locd.toml")
        #expect(none.core.agentWait == .seconds(0))
        #expect(
            failure("[lifecycle]\nagent-wait = -1")
                == "/etc/locd/locd.toml:2: key lifecycle.agent-wait: expected a number of seconds >= 0 (0: no wait), "
                + "found -1"
        )
    }

    @Test("P12: always-reconfirm defaults to 3 days, 0 turns it off, and a negative one is refused")
    func alwaysReconfirm() throws {
        #expect(DaemonConfiguration().core.alwaysReconfirm == .seconds(259_200))
        let off = try DaemonConfiguration.parse(text: "[lifecycle]\nalways-reconfirm = 0", file: "/etc/locd/locd.toml")
        #expect(off.core.alwaysReconfirm == .seconds(0))
        let day = try DaemonConfiguration.parse(
            text: "[lifecycle]\nalways-reconfirm = 86400",
            file: "/etc/locd/locd.toml"
        )
        #expect(day.core.alwaysReconfirm == .seconds(86_400))
        #expect(
            failure("[lifecycle]\nalways-reconfirm = -1")
                == "/etc/locd/locd.toml:2: key lifecycle.always-reconfirm: expected a number of seconds >= 0 "
                + "(0 turns it off), found -1"
        )
    }

    @Test("§11: an out-of-range limit names file, line, key and what is allowed")
    func outOfRangeLimits() {
        #expect(
            failure("[limits]\nmax-sessions-per-app = 0")
                == "/etc/locd/locd.toml:2: key limits.max-sessions-per-app: expected a positive integer, found 0"
        )
        #expect(
            failure("[limits]\nmax-pipelined-calls = 0")
                == "/etc/locd/locd.toml:2: key limits.max-pipelined-calls: expected a positive integer, found 0"
        )
        #expect(
            failure("[limits]\nmax-conditions-per-app = -1")
                == "/etc/locd/locd.toml:2: key limits.max-conditions-per-app: expected a positive integer, found -1"
        )
        #expect(
            failure("[limits]\nmax-apps-per-uid = 0")
                == "/etc/locd/locd.toml:2: key limits.max-apps-per-uid: expected a positive integer, found 0"
        )
    }

    @Test("F10–F13: the connection limits reject a zero, negative or wrong-typed value, naming file, line and key")
    func outOfRangeConnectionLimits() {
        #expect(
            failure("[limits]\nmax-connections-per-uid = 0")
                == "/etc/locd/locd.toml:2: key limits.max-connections-per-uid: expected a positive integer, found 0"
        )
        #expect(
            failure("[limits]\nadmin-reserve = -1")
                == "/etc/locd/locd.toml:2: key limits.admin-reserve: expected an integer >= 0, found -1"
        )
        #expect(
            failure("[limits]\nidle-timeout = 0")
                == "/etc/locd/locd.toml:2: key limits.idle-timeout: expected a number of seconds > 0, found 0"
        )
        #expect(
            failure("[limits]\nidle-timeout = \"10s\"")
                == "/etc/locd/locd.toml:2: key limits.idle-timeout: expected a number of seconds > 0, found string"
        )
    }

    @Test("F14: the connection limits are lowered to fit the open-file limit, keeping descriptors for the rest")
    func fittedToOpenFiles() throws {
        var limits = DaemonConfiguration.Limits()
        // Room for all of them: nothing changes.
        #expect(limits.openFilesWanted == 4096 + 16 + 64)
        #expect(limits.fitted(toOpenFiles: 4176) == nil)
        #expect(limits.fitted(toOpenFiles: 1_048_576) == nil)
        // systemd's default soft limit of 1024: 960 descriptors for connections, 16 of them the reserve.
        let fitted = try #require(limits.fitted(toOpenFiles: 1024))
        #expect(fitted.maxConnections == 944)
        #expect(fitted.adminReserve == 16)
        #expect(fitted.maxConnections + fitted.adminReserve + DaemonConfiguration.Limits.descriptorReserve == 1024)
        // A tiny limit: the reserve takes at most half of what is left, and one connection is always allowed.
        limits.adminReserve = 40
        let small = try #require(limits.fitted(toOpenFiles: 100))
        #expect(small.adminReserve == 18)
        #expect(small.maxConnections == 18)
        let none = try #require(limits.fitted(toOpenFiles: 10))
        #expect(none.maxConnections == 1)
        #expect(none.adminReserve == 0)
        // The other limits are left alone.
        #expect(small.maxConnectionsPerUID == limits.maxConnectionsPerUID)
        #expect(small.idleTimeout == limits.idleTimeout)
    }

    @Test("§11: out-of-range provider values name file, line, key and what is allowed")
    func outOfRangeProvider() {
        #expect(
            failure("[provider]\nlatitude = 91")
                == "/etc/locd/locd.toml:2: key provider.latitude: expected degrees of latitude in [-90, 90], found 91"
        )
        #expect(
            failure("[provider]\nlongitude = -180.5")
                == "/etc/locd/locd.toml:2: key provider.longitude: expected degrees of longitude in [-180, 180], "
                + "found -180.5"
        )
        #expect(
            failure("[provider]\nkind = \"gps\"")
                == #"/etc/locd/locd.toml:2: key provider.kind: expected one of "static", "nmea", "gpsd", "network", found "gps""#
        )
        #expect(
            failure("[provider]\nkind = \"gpsd\"\nport = 70000")
                == "/etc/locd/locd.toml:3: key provider.port: expected a port number in 1...65535, found 70000"
        )
        #expect(
            failure("[provider]\nspeed-factor = 0")
                == "/etc/locd/locd.toml:2: key provider.speed-factor: expected a number > 0, found 0"
        )
    }

    @Test("§11: a socket path too long for a Unix socket address is out of range")
    func socketPathTooLong() {
        let path = "/" + String(repeating: "s", count: 107)
        #expect(
            failure("socket = \"\(path)\"")
                == "/etc/locd/locd.toml:1: key socket: expected a socket path of at most 107 bytes, found 108 bytes"
        )
    }

    // MARK: Unknown keys

    @Test("§11: an unknown key is an error naming file, line, key and the keys allowed there")
    func unknownKeys() {
        #expect(
            failure("socket-path = \"/tmp/x\"")
                == "/etc/locd/locd.toml:1: key socket-path: unknown key; allowed at the top level: socket, state-dir, "
                + "apps-dirs, allow-unknown-apps, admin-group, restricted-apps, broker, unknown-brokered-apps, "
                + "lifecycle, limits, provider, administered-app, geoclue"
        )
        #expect(
            failure("[lifecycle]\nbackground-grace = 5\ngrace = 5")
                == "/etc/locd/locd.toml:3: key lifecycle.grace: unknown key; allowed in [lifecycle]: background-grace, "
                + "relaunch-window, relaunch-adopt, prompt-timeout, agent-wait, always-reconfirm"
        )
        #expect(
            failure("[limits]\nmax-sessions = 5")
                == "/etc/locd/locd.toml:2: key limits.max-sessions: unknown key; allowed in [limits]: "
                + "max-sessions-per-app, max-clients-per-app, max-connections, max-connections-per-uid, admin-reserve, "
                + "idle-timeout, max-message-bytes, max-queued-updates, max-write-buffer, max-pending-writes, "
                + "max-held-messages, max-pipelined-calls, max-conditions-per-app, max-apps-per-uid, "
                + "max-sessions-per-uid, max-agents-per-uid, subordinate-uids"
        )
        #expect(
            failure("[provider]\nkind = \"static\"\nlat = 35")
                == "/etc/locd/locd.toml:3: key provider.lat: unknown key; allowed in [provider]: kind, latitude, "
                + "longitude, altitude, accuracy, file, speed-factor, host, port, socket, url, consider-ip, interval, "
                + "minimum-interval, access-points, stale-after"
        )
    }

    @Test("§11: keys written as dotted keys or inline tables are located on their own line")
    func dottedAndInlineKeys() {
        #expect(
            failure("admin-group = \"locd\"\nlifecycle.background-grace = -1")
                == "/etc/locd/locd.toml:2: key lifecycle.background-grace: expected a number of seconds > 0, found -1"
        )
        #expect(
            failure("admin-group = \"locd\"\n\nlimits = { max-connections = 10, max-write-buffer = -5 }")
                == "/etc/locd/locd.toml:3: key limits.max-write-buffer: expected a positive integer, found -5"
        )
    }

    @Test("§11: a file that is not TOML names file, line and what is wrong")
    func notTOML() {
        let message = failure("state-dir = \"/var/lib/locd\"\n[lifecycle\nprompt-timeout = 1")
        #expect(
            message?.hasPrefix("/etc/locd/locd.toml:2: key lifecycle: not valid TOML: ") == true,
            "\(message ?? "")"
        )
    }

    // MARK: Files and drop-ins

    @Test("§11, U28: a missing file at the default path means the built-in defaults, gpsd then the network position")
    func missingDefaultFile() throws {
        try TemporaryDirectory.with { directory in
            let configuration = try DaemonConfiguration.loadOwn(path: nil, defaultPath: directory.at("locd.toml"))
            var expected = DaemonConfiguration()
            expected.providers = DaemonConfiguration.Provider.builtIn
            #expect(configuration == expected)
        }
    }

    @Test("U28, U17: with no provider written locd asks gpsd, then beaconDB; a written [provider] is the one provider")
    func builtInProviders() throws {
        try TemporaryDirectory.with { directory in
            let providers = try DaemonConfiguration.loadOwn(path: directory.write("locd.toml", "")).providers
            #expect(providers.map(\.kind) == [.gpsd, .network])
            #expect(providers[0].socket == "/run/locd/gpsd.sock")
            #expect(providers[1].networkSocket == "/run/locd/network.sock")
            #expect(providers[1].url == "https://api.beacondb.net/v1/geolocate")
            // A [provider] table in a drop-in starts from one provider with its keys, as before U28.
            try FileManager.default.createDirectory(
                atPath: directory.at("locd.toml.d"),
                withIntermediateDirectories: true
            )
            _ = try directory.write("locd.toml.d/point.toml", "[provider]\nkind = \"static\"\nlatitude = 52.5\n")
            let written = try DaemonConfiguration.loadOwn(path: directory.at("locd.toml")).providers
            #expect(written.count == 1 && written[0].kind == .fixedPoint && written[0].latitude == 52.5)
            // G31: GeoClue's [wifi] enable=false takes the network position out; the gpsd provider stays.
            let geoclue = try directory.write("geoclue.conf", "[wifi]\nenable=false\n")
            let importing = try directory.write("importing.toml", "[geoclue]\nconfig = \"\(geoclue)\"\n")
            #expect(try DaemonConfiguration.loadOwn(path: importing).providers.map(\.kind) == [.gpsd])
        }
    }

    @Test("§11: a missing file named explicitly is an error")
    func missingExplicitFile() throws {
        try TemporaryDirectory.with { directory in
            let path = directory.at("locd.toml")
            #expect(throws: ConfigurationIssue(file: path, line: nil, key: nil, message: "no such file")) {
                try DaemonConfiguration.loadOwn(path: path, defaultPath: path)
            }
        }
    }

    @Test("§11: drop-ins beside the file override it key by key, in name order")
    func dropInsOverrideKeyByKey() throws {
        try TemporaryDirectory.with { directory in
            let main = try directory.write(
                "locd.toml",
                """
                admin-group = "staff"
                [lifecycle]
                background-grace = 20
                relaunch-window = 30
                [provider]
                kind = "nmea"
                file = "/srv/route.nmea"
                """
            )
            try directory.write("locd.toml.d/20-late.toml", "[lifecycle]\nbackground-grace = 2\n")
            try directory.write("locd.toml.d/10-early.toml", "[lifecycle]\nbackground-grace = 1\nprompt-timeout = 9\n")
            try directory.write("locd.toml.d/30-speed.toml", "[provider]\nspeed-factor = 3\n")
            try directory.write("locd.toml.d/99-notes.txt", "not = toml = at all")

            let configuration = try DaemonConfiguration.loadOwn(path: main)

            var expected = DaemonConfiguration()
            expected.adminGroup = "staff"
            expected.lifecycle.backgroundGrace = .seconds(2)
            expected.lifecycle.relaunchWindow = .seconds(30)
            expected.lifecycle.promptTimeout = .seconds(9)
            expected.provider.kind = .nmea
            expected.provider.file = "/srv/route.nmea"
            expected.provider.speedFactor = 3
            #expect(configuration == expected)
        }
    }

    @Test("§11: drop-ins are read even when the default file is missing")
    func dropInsWithoutDefaultFile() throws {
        try TemporaryDirectory.with { directory in
            try directory.write("locd.toml.d/demo.toml", "allow-unknown-apps = true\n")
            let configuration = try DaemonConfiguration.loadOwn(path: nil, defaultPath: directory.at("locd.toml"))
            #expect(configuration.allowUnknownApps == true)
        }
    }

    @Test("§11: an error in a drop-in names the drop-in file and its line")
    func dropInErrorNamesDropIn() throws {
        try TemporaryDirectory.with { directory in
            let main = try directory.write("locd.toml", "admin-group = \"locd\"\n")
            let dropIn = try directory.write(
                "locd.toml.d/50-limits.toml",
                "# tighter limits\n[limits]\nmax-connections = -1\n"
            )

            #expect(
                throws: ConfigurationIssue(
                    file: dropIn,
                    line: 3,
                    key: "limits.max-connections",
                    message: "expected a positive integer, found -1"
                )
            ) {
                try DaemonConfiguration.loadOwn(path: main)
            }
        }
    }

    @Test("§11: a provider switched to nmea by a drop-in needs a file, reported in that drop-in")
    func dropInSwitchesProviderKind() throws {
        try TemporaryDirectory.with { directory in
            let main = try directory.write("locd.toml", "[provider]\nkind = \"static\"\nlatitude = 1\n")
            let dropIn = try directory.write("locd.toml.d/route.toml", "\n[provider]\nkind = \"nmea\"\n")

            #expect(
                throws: ConfigurationIssue(
                    file: dropIn,
                    line: 3,
                    key: "provider.file",
                    message: "required when kind = \"nmea\": the NMEA 0183 file to replay"
                )
            ) {
                try DaemonConfiguration.loadOwn(path: main)
            }
        }
    }
}
