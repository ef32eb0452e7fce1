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
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap {
            VarlinkReply.decode(Array($0.utf8))
        }
    }

    @Test(
        "I3: Admin methods refuse a peer that is not root, locd's user or in the admin group",
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
            ]
        )
        #expect(
            replies.map(\.error) == ["org.varlink.service.PermissionDenied", "org.varlink.service.PermissionDenied"]
        )
        let admin = try daemon.connect()
        #expect(try admin.call("io.locd.Admin.Status")["status"]?["locationServicesEnabled"] == .bool(true))
        #expect(daemon.stop() == 0)
        #expect(daemon.errorOutput.contains("refused io.locd.Admin.Status"))
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
}
