import Foundation
import JSON
import LocationTestSupport
import Testing
import Varlink

#if canImport(Glibc)
import Glibc
#endif

/// SEMANTICS §9 with a client that really runs as another user (nobody, through setpriv).
@Suite("Privilege", .serialized)
struct PrivilegeTests {
    /// Runs the raw client as uid/gid 65534 and returns its replies.
    private func asNobody(socket: String, calls: [JSONValue]) throws -> [VarlinkReply] {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Scripts/raw_client.py").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments =
            ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", script, socket]
            + calls.map(\.serialized)
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitForExit()
        return String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap {
            VarlinkReply.decode(Array($0.utf8))
        }
    }

    @Test(
        "H4, I3: an ordinary user's Admin calls reach only their own: their switch, not the machine's; ForgetApps and Reload stay the administrators'",
        .enabled(if: getuid() == 0, "running a client as another user needs root")
    )
    func adminRefused() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let replies = try asNobody(
            socket: daemon.socketPath,
            calls: [
                .object(["method": .string("io.locd.Admin.Status")]),
                .object([
                    "method": .string("io.locd.Admin.SetLocationServices"),
                    "parameters": .object(["enabled": .bool(false)]),
                ]),
                .object(["method": .string("io.locd.Admin.Status")]),
                .object([
                    "method": .string("io.locd.Admin.ForgetApps"), "parameters": .object(["owner": .int(0)]),
                ]),
                .object(["method": .string("io.locd.Admin.Reload")]),
            ]
        )
        #expect(
            replies.map(\.error) == [
                nil, nil, nil, "org.varlink.service.PermissionDenied", "org.varlink.service.PermissionDenied",
            ]
        )
        // The user's own switch is off; the machine's stays on, and the user is told they do not administer.
        let before = replies.first?.parameters["status"]
        let after = replies.dropFirst(2).first?.parameters["status"]
        #expect(before?["administrator"] == .bool(false) && before?["locationServicesEnabledForUser"] == .bool(true))
        #expect(
            after?["locationServicesEnabledForUser"] == .bool(false) && after?["locationServicesEnabled"] == .bool(true)
        )
        let admin = try daemon.connect()
        let status = try admin.call("io.locd.Admin.Status")["status"]
        #expect(status?["locationServicesEnabled"] == .bool(true) && status?["administrator"] == .bool(true))
        #expect(daemon.stop() == 0)
        #expect(daemon.errorOutput.contains("refused io.locd.Admin.Reload"))
        #expect(daemon.errorOutput.contains("locd.uid=65534"))
    }

    @Test(
        "I1, I2: another user cannot speak for a uid-verified app, nor see another app's session",
        .enabled(if: getuid() == 0, "running a client as another user needs root")
    )
    func otherUser() throws {
        var manifests = DaemonProcess.standardManifests
        manifests["com.ex.rootonly"] = """
            id = "com.ex.rootonly"
            identity = "uid"
            users = ["root"]
            NSLocationWhenInUseUsageDescription = "Only root's processes are this app"
            """
        let daemon = try DaemonProcess(manifests: manifests)
        try daemon.start()
        let maps = try daemon.app("com.ex.maps")
        let id = try #require(
            try maps.call("io.locd.App.CreateSession", ["authorization": .string("none")]).sessionID
        )
        let replies = try asNobody(
            socket: daemon.socketPath,
            calls: [
                .object([
                    "method": .string("io.locd.App.Hello"),
                    "parameters": .object(["appId": .string("com.ex.rootonly")]),
                ]),
                .object([
                    "method": .string("io.locd.App.Hello"), "parameters": .object(["appId": .string("com.ex.run")]),
                ]),
                .object([
                    "method": .string("io.locd.App.InvalidateSession"), "parameters": .object(["id": .string(id)]),
                ]),
            ]
        )
        #expect(replies.count == 3)
        #expect(replies.first?.error == "org.varlink.service.PermissionDenied")
        #expect(replies.dropFirst().first?.error == nil)
        #expect(replies.last?.error == "io.locd.App.NoSuchSession")
        let sessions = try maps.call("io.locd.App.ListSessions")["sessions"]?.arrayValue ?? []
        #expect(sessions.map { $0["id"] } == [.string(id)])
    }

    @Test(
        "F20: apps with no manifest that a user's own processes make (M3) count against its uid: past max-apps-per-uid Hello is LimitExceeded, another uid's are apart",
        .enabled(if: getuid() == 0, "running a client as another user needs root")
    )
    func appsPerUID() throws {
        // The apps are kept by their lingering sessions for a minute after their processes leave (L3).
        let settings =
            DaemonProcess.lifecycle(relaunchWindow: 60)
            .replacingOccurrences(of: "allow-unknown-apps = false", with: "allow-unknown-apps = true")
            + "\n[limits]\nmax-apps-per-uid = 2"
        let daemon = try DaemonProcess(settings: settings)
        try daemon.start()
        func invent(_ appID: String) throws -> [VarlinkReply] {
            try asNobody(
                socket: daemon.socketPath,
                calls: [
                    .object(["method": .string("io.locd.App.Hello"), "parameters": .object(["appId": .string(appID)])]),
                    .object([
                        "method": .string("io.locd.App.CreateSession"),
                        "parameters": .object(["authorization": .string("whenInUse")]),
                    ]),
                ]
            )
        }
        #expect(try invent("org.invented.one").map(\.error) == [nil, nil])
        #expect(try invent("org.invented.two").map(\.error) == [nil, nil])
        let refused = try invent("org.invented.three")
        #expect(refused.first?.error == "io.locd.App.LimitExceeded")
        #expect(refused.first?.parameters["limit"]?.stringValue == "max-apps-per-uid")
        // An app nobody already has is not refused: its process may come back.
        #expect(try invent("org.invented.one").first?.error == nil)
        // Root's own process is another uid.
        let own = try daemon.connect()
        #expect(throws: Never.self) { try own.call("io.locd.App.Hello", ["appId": .string("org.invented.root")]) }
        let apps = try daemon.connect().call("io.locd.Admin.ListApps")["apps"]?.arrayValue ?? []
        let owners = Dictionary(
            uniqueKeysWithValues: apps.compactMap { app in
                app["appId"]?.stringValue.map { ($0, app["owner"]?.intValue ?? -1) }
            }
        )
        #expect(owners["org.invented.one"] == 65534 && owners["org.invented.two"] == 65534)
        #expect(owners["org.invented.root"] == 0)
        #expect(owners["org.invented.three"] == nil)
        #expect(owners["com.ex.maps"] == -1, "an app with a manifest of its own has no owner")
    }
}
