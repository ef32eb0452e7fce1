import Foundation
import JSON
import LocationTestSupport
import Testing
import Varlink

#if canImport(Glibc)
import Glibc
#endif

/// locd-agent in a real sway session (headless, as an ordinary user): the focus decides which of the person's apps
/// are in the foreground, through locd's own `Admin` calls (SEMANTICS L10–L13, N7).
@Suite("locd-agent reads sway", .serialized)
struct AgentSwayTests {
    private static let runs = SwaySession.isAvailable && Desktop.isAvailable && getuid() == 0
    private static let alice: UInt32 = 61_011
    private static let bob: UInt32 = 61_012

    /// locd; Alice's sway with a `foot` window of `com.ex.maps` running the app (locd-example, a client of locd in
    /// the foreground with a whenInUse session and live updates) and one of another program; her locd-agent.
    final class Scene {
        let daemon: DaemonProcess
        let sway: SwaySession
        let session: Desktop
        let agent: ScriptProcess
        let maps: ScriptProcess

        init() throws {
            daemon = try DaemonProcess()
            try daemon.start()
            _ = try daemon.authorize("com.ex.maps", "whileUsing")
            sway = try SwaySession(uid: AgentSwayTests.alice)
            maps = try sway.openWindow(
                appID: "com.ex.maps",
                running: [
                    DaemonProcess.executable("locd-example"), "--socket", daemon.socketPath, "--app", "com.ex.maps",
                    "--state", "foreground",
                ]
            )
            try sway.openWindow(appID: "org.example.Notes")
            // Her session bus (the agent needs one), and the agent with the session's environment.
            session = try Desktop(display: try XDisplay(), uid: AgentSwayTests.alice)
            let variables = sway.environment.map { "\($0.key)=\($0.value)" }
            agent = try session.start(
                ["/usr/bin/env"] + variables + [
                    DaemonProcess.executable("locd-agent"), "--socket", daemon.socketPath, "--verbose",
                ],
                log: "agent.log"
            )
        }

        /// Alice's `com.ex.maps` as an administrator's `ListApps` shows it.
        func entry(_ appID: String = "com.ex.maps", of user: UInt32 = AgentSwayTests.alice) -> JSONValue? {
            let apps = try? daemon.connect().call("io.locd.Admin.ListApps")["apps"]?.arrayValue
            return apps?.first { $0["appId"] == .string(appID) && $0["user"] == .int(Int64(user)) }
        }

        func status() -> JSONValue? { try? daemon.connect().call("io.locd.Admin.Status")["status"] }

        func state() -> String? { entry()?["state"]?.stringValue }
        func inUse() -> Bool? { entry()?["inUse"]?.boolValue }
        func receiving() -> Bool {
            status()?["appsUsingLocation"]?.arrayValue?.contains(.string("com.ex.maps")) ?? false
        }

        var logs: String { "agent: \(agent.log)\nmaps: \(maps.log)" }
    }

    @Test(
        "L10, L11, L13, N7: with sway, ListApps's state and inUse follow the focus within 2 s; updates stop and resume",
        .enabled(if: runs, "needs sway, foot, dunst, Xvfb, dbus-daemon, and root to run the person's processes")
    )
    func stateFollowsFocus() throws {
        let scene = try Scene()
        try scene.sway.focus("com.ex.maps")
        #expect(
            eventually(timeout: 20) {
                scene.entry()?["stateSource"] == .string("sway") && scene.state() == "foreground"
            },
            "\(scene.logs)"
        )
        #expect(eventually { scene.receiving() }, "in front and allowed While Using: it receives. \(scene.logs)")
        let desktops = scene.status()?["desktops"]?.arrayValue ?? []
        #expect(desktops.first?["desktop"] == .string("sway") && desktops.first?["reading"] == .bool(true))
        try scene.sway.focus("org.example.Notes")
        #expect(eventually(timeout: 2) { scene.state() == "background" }, "\(scene.logs)")
        #expect(eventually(timeout: 2) { scene.inUse() == false }, "past the grace (0.4 s here)")
        #expect(eventually(timeout: 2) { !scene.receiving() }, "While-Using updates stop")
        try scene.sway.focus("com.ex.maps")
        #expect(eventually(timeout: 2) { scene.state() == "foreground" && scene.inUse() == true })
        #expect(eventually { scene.receiving() }, "and resume")
    }

    @Test(
        "L11: an app that keeps saying foreground while its window is hidden stays in the background",
        .enabled(if: runs, "needs sway, foot, dunst, Xvfb, dbus-daemon, and root to run the person's processes")
    )
    func claimsDoNotRaise() throws {
        let scene = try Scene()
        try scene.sway.focus("org.example.Notes")
        #expect(eventually(timeout: 20) { scene.state() == "background" }, "\(scene.logs)")
        let liar = try Claimant(socket: scene.daemon.socketPath, uid: Self.alice, appID: "com.ex.maps")
        #expect(eventually { liar.claims >= 1 }, "\(liar.log)")
        #expect(eventually(timeout: 2) { scene.inUse() == false }, "past the grace, whatever it says")
        let claimed = liar.claims
        #expect(eventually { liar.claims >= claimed + 20 }, "\(liar.log)")
        #expect(scene.state() == "background" && scene.inUse() == false, "its claims do not raise it")
        // The agent gone, the desktop no longer decides: the app's own word does again (L1).
        scene.agent.kill9()
        #expect(eventually { scene.state() == "foreground" && scene.entry()?["stateSource"] == .string("app") })
    }

    @Test(
        "L11, H4: another user cannot report for the person, nor move the person's apps with their own desktop",
        .enabled(if: runs, "needs sway, foot, dunst, Xvfb, dbus-daemon, and root to run the person's processes")
    )
    func anotherUserCannotReport() throws {
        let scene = try Scene()
        try scene.sway.focus("com.ex.maps")
        #expect(eventually(timeout: 20) { scene.state() == "foreground" }, "\(scene.logs)")
        let attack = try ChildProcess(
            [
                "/usr/bin/setpriv", "--reuid=\(Self.bob)", "--regid=\(Self.bob)", "--clear-groups", "/usr/bin/python3",
                "-c", Claimant.reportScript, scene.daemon.socketPath, "\(Self.alice)",
            ]
        )
        // Naming Alice is refused; Bob's own report, naming no app of his, moves none of Alice's.
        #expect(attack.output.contains("org.varlink.service.PermissionDenied"), "\(attack.output)")
        #expect(attack.output.split(separator: "\n").last?.contains("\"error\"") == false, "\(attack.output)")
        #expect(scene.state() == "foreground" && scene.entry()?["stateSource"] == .string("sway"))
        let desktops = scene.status()?["desktops"]?.arrayValue ?? []
        #expect(desktops.map { $0["user"] } == [.int(Int64(Self.alice))], "Bob's source went with his connection")
    }

    @Test(
        "N7: a desktop locd-agent finds but cannot read is said once, plainly, in its log and in Status; apps keep their word",
        .enabled(if: Desktop.isAvailable && getuid() == 0, "needs Xvfb, dbus-daemon, and root to run the person")
    )
    func unreadableDesktopSaidOnce() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let session = try Desktop(display: try XDisplay(), uid: Self.alice)
        let missing = session.directory.at("sway-ipc.gone.sock")
        let agent = try session.start(
            [
                "/usr/bin/env", "SWAYSOCK=\(missing)", DaemonProcess.executable("locd-agent"), "--socket",
                daemon.socketPath, "--verbose",
            ],
            log: "agent.log"
        )
        let app = try PersonClaim(socket: daemon.socketPath, uid: Self.alice)
        func desktops() -> [JSONValue] {
            (try? daemon.connect().call("io.locd.Admin.Status")["status"]?["desktops"]?.arrayValue) ?? []
        }
        #expect(eventually { desktops().first?["reading"] == .bool(false) }, "\(agent.log)")
        let failure = desktops().first?["failure"]?.stringValue ?? ""
        #expect(failure.contains("cannot connect to sway") && failure.contains(missing), "\(failure)")
        #expect(agent.log.components(separatedBy: "cannot read the desktop sway").count == 2, "\(agent.log)")
        let apps = try daemon.connect().call("io.locd.Admin.ListApps")["apps"]?.arrayValue ?? []
        let maps = apps.first { $0["appId"] == .string("com.ex.maps") && $0["user"] == .int(Int64(Self.alice)) }
        #expect(maps?["state"] == .string("foreground") && maps?["stateSource"] == .string("app"))
        withExtendedLifetime(app) {}
    }
}

/// A process of `uid` that says `Hello(com.ex.maps, foreground)` and holds on.
private final class PersonClaim {
    private let client: ScriptProcess
    private let directory: TemporaryDirectory

    init(socket: String, uid: UInt32) throws {
        directory = try TemporaryDirectory(prefix: "claim")
        let script = """
            import json, socket, sys
            s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
            s.sendall(json.dumps({"method": "io.locd.App.Hello", "parameters": {"appId": "com.ex.maps"}}).encode() + b"\\0")
            print(s.recv(65536).split(b"\\0")[0].decode(), flush=True)
            sys.stdin.read()
            """
        client = try ScriptProcess(
            [
                "/usr/bin/setpriv", "--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", "/usr/bin/python3", "-c",
                script, socket,
            ],
            logPath: directory.at("claim.log")
        )
        guard client.waitFor({ $0["parameters"] != nil }) != nil else {
            throw StandInFailure("the app of uid \(uid) did not start: \(client.log)")
        }
    }

    deinit {
        client.kill9()
        directory.remove()
    }
}

/// A process of `uid` for `appID` that says `Hello(foreground)` and then `SetAppState(foreground)` over and over,
/// printing a line for each reply: an app that claims the foreground whatever the desktop shows.
private final class Claimant {
    private let client: ScriptProcess
    private let directory: TemporaryDirectory

    /// Bob's attack: `SetDesktop` naming Alice (argv[2]), then one for himself with nothing in front.
    static let reportScript = """
        import json, socket, sys
        s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
        for parameters in [{"desktop": "sway", "front": [], "user": int(sys.argv[2])}, {"desktop": "sway", "front": []}]:
            s.sendall(json.dumps({"method": "io.locd.Admin.SetDesktop", "parameters": parameters}).encode() + b"\\0")
            reply = b""
            while b"\\0" not in reply: reply += s.recv(65536)
            print(reply.split(b"\\0")[0].decode(), flush=True)
        """

    init(socket: String, uid: UInt32, appID: String) throws {
        directory = try TemporaryDirectory(prefix: "claimant")
        let script = """
            import json, socket, sys
            s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
            def call(method, parameters):
                s.sendall(json.dumps({"method": method, "parameters": parameters}).encode() + b"\\0")
                reply = b""
                while b"\\0" not in reply: reply += s.recv(65536)
                print(reply.split(b"\\0")[0].decode(), flush=True)
            call("io.locd.App.Hello", {"appId": sys.argv[2], "state": "foreground"})
            while True: call("io.locd.App.SetAppState", {"state": "foreground"})
            """
        client = try ScriptProcess(
            [
                "/usr/bin/setpriv", "--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", "/usr/bin/python3", "-c",
                script, socket, appID,
            ],
            logPath: directory.at("claimant.log")
        )
    }

    var claims: Int { client.log.split(separator: "\n").count - 1 }
    var log: String { String(client.log.prefix(2000)) }

    deinit {
        client.kill9()
        directory.remove()
    }
}
