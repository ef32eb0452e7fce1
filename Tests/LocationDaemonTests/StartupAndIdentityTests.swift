import Foundation
import LocationTestSupport
import Testing
import Varlink

#if canImport(Glibc)
import Glibc
#endif

/// Start-up failures, and who may speak for an app (SEMANTICS §9, §11).
@Suite("Start-up and identity", .serialized)
struct StartupAndIdentityTests {
    /// This test process's executable, as the daemon reads it from /proc/PID/exe.
    private var ownExecutable: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
    }

    @Test("I1: Hello is allowed for a listed executable or uid and refused, and logged, otherwise")
    func identity() throws {
        let manifests = [
            "com.ex.mine": """
            id = "com.ex.mine"
            identity = "executable"
            executables = ["\(ownExecutable)"]
            """,
            "com.ex.other": """
            id = "com.ex.other"
            identity = "executable"
            executables = ["/usr/bin/false"]
            """,
            "com.ex.ours": """
            id = "com.ex.ours"
            identity = "uid"
            users = ["\(getuid())"]
            """,
            "com.ex.theirs": """
            id = "com.ex.theirs"
            identity = "uid"
            users = ["\(getuid() + 4321)"]
            """,
        ]
        let daemon = try DaemonProcess(manifests: manifests)
        try daemon.start()
        _ = try daemon.app("com.ex.mine")
        _ = try daemon.app("com.ex.ours")
        #expect(errorName { _ = try daemon.app("com.ex.other") } == "org.varlink.service.PermissionDenied")
        #expect(errorName { _ = try daemon.app("com.ex.theirs") } == "org.varlink.service.PermissionDenied")
        #expect(daemon.stop() == 0)
        let refusals = daemon.errorOutput.split(separator: "\n").filter { $0.contains("refused io.locd.App.Hello") }
        #expect(refusals.count == 2)
        #expect(refusals.allSatisfy { $0.contains("locd.pid=\(getpid())") && $0.contains("locd.uid=\(getuid())") })
    }

    @Test("§11: an invalid configuration stops start-up with one line naming file, line and key (exit 78)")
    func invalidConfiguration() throws {
        let daemon = try DaemonProcess(
            settings: DaemonProcess.fastLifecycle + "\n[limits]\nmax-sessions-per-app = -3\n"
        )
        #expect(throws: NotifySocket.SenderExited.self) { try daemon.start() }
        let status = daemon.stop()
        #expect(status == 78)
        let lines = daemon.errorOutput.split(separator: "\n").filter { $0.contains("max-sessions-per-app") }
        #expect(lines.count == 1)
        #expect(lines.first?.contains("\(daemon.configPath):") == true)
    }

    @Test("R4: a store that cannot be opened is a clear error at start (exit 73)")
    func storeCannotOpen() throws {
        let daemon = try DaemonProcess()
        try FileManager.default.createDirectory(atPath: daemon.stateDirectory, withIntermediateDirectories: true)
        try "not a database".write(toFile: daemon.stateDirectory + "/locd.sqlite", atomically: true, encoding: .utf8)
        #expect(throws: NotifySocket.SenderExited.self) { try daemon.start() }
        #expect(daemon.stop() == 73)
        #expect(daemon.errorOutput.contains("locd.sqlite"))
    }

    @Test("systemd: lifecycle events are logged with LOCD_APP, LOCD_SESSION and a MESSAGE_ID")
    func lifecycleLogging() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let app = try daemon.app("com.ex.maps")
        let id = try #require(try app.call("io.locd.App.CreateSession", ["authorization": .string("none")]).sessionID)
        try app.call("io.locd.App.InvalidateSession", ["id": .string(id)])
        #expect(daemon.stop() == 0)
        let lines = daemon.errorOutput.split(separator: "\n")
        let created = lines.first { $0.contains("message-id=9805834eac604910ba439622f4ea1c51") }
        #expect(created?.contains("locd.session=\(id)") == true)
        #expect(created?.contains("locd.app=com.ex.maps") == true)
        #expect(lines.contains { $0.contains("message-id=aa2fe301823644239b86bb9dc03d05bf") && $0.contains(id) })
    }
}
