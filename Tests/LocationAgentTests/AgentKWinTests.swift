import Foundation
import JSON
import LocationTestSupport
import Testing
import Varlink

@testable import LocationAgent

#if canImport(Glibc)
import Glibc
#endif

/// locd-agent in a real KWin 5.27 session (headless, as an ordinary user, with the project's script installed
/// where the session's XDG_DATA_DIRS finds it): the focus decides which of the person's apps are in the foreground, through locd's own `Admin` calls
/// (SEMANTICS L10-L13, L18).
@Suite("locd-agent reads KWin", .serialized)
struct AgentKWinTests {
    private static let runs = KWinSession.isAvailable && getuid() == 0

    @Test(
        "L18, N15: with KWin, started with no arguments, ListApps's state and inUse follow the focus within 2 s; updates stop and resume",
        .enabled(if: runs, "needs root, kwin-wayland, gdbus and python3-gi's GTK 3 (.ci/install-deps --tests)")
    )
    func stateFollowsFocus() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        _ = try daemon.authorize("com.ex.maps", "whileUsing")
        let session = try KWinSession()
        let uid = Int64(session.account.uid)
        _ = try session.openWindow("com.ex.maps")
        _ = try session.openWindow("org.example.Notes")
        let maps = try session.start(
            [
                DaemonProcess.executable("locd-example"), "--socket", daemon.socketPath, "--app", "com.ex.maps",
                "--state", "foreground",
            ],
            log: "maps.log"
        )
        let agent = try session.start(
            [DaemonProcess.executable("locd-agent")],
            log: "agent.log",
            environment: ["LOCD_SOCKET": daemon.socketPath]
        )
        func entry() -> JSONValue? {
            let apps = try? daemon.connect().call("io.locd.Admin.ListApps")["apps"]?.arrayValue
            return apps?.first { $0["appId"] == .string("com.ex.maps") && $0["user"] == .int(uid) }
        }
        func state() -> String? { entry()?["state"]?.stringValue }
        func receiving() -> Bool {
            let status = try? daemon.connect().call("io.locd.Admin.Status")["status"]
            return status?["appsUsingLocation"]?.arrayValue?.contains(.string("com.ex.maps")) ?? false
        }
        let logs = { "agent: \(agent.log)\nmaps: \(maps.log)" }
        try session.activate("com.ex.maps")
        #expect(
            eventually(timeout: 20) { entry()?["stateSource"] == .string("kwin") && state() == "foreground" },
            "\(logs())"
        )
        #expect(eventually { receiving() }, "in front and allowed While Using: it receives. \(logs())")
        try session.activate("org.example.Notes")
        try session.minimize("com.ex.maps")
        #expect(eventually(timeout: 2) { state() == "background" }, "\(logs())")
        #expect(eventually(timeout: 2) { entry()?["inUse"]?.boolValue == false }, "past the grace")
        #expect(eventually(timeout: 2) { !receiving() }, "While-Using updates stop")
        try session.activate("com.ex.maps")
        #expect(eventually(timeout: 2) { state() == "foreground" && entry()?["inUse"]?.boolValue == true })
        #expect(eventually { receiving() }, "and resume")
        // The agent ends, and KWin's script with it.
        #expect(session.scriptLoaded(KWinSource.pluginName) == true)
        agent.stop()
        #expect(eventually(timeout: 5) { session.scriptLoaded(KWinSource.pluginName) == false }, "\(logs())")
    }
}
