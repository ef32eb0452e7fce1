import Foundation
import JSON
import LocationTestSupport
import Testing
import Varlink

#if canImport(Glibc)
import Glibc
#endif

/// P14 through the real daemon: a person's app whose prompt nobody can answer is told so promptly, and the log says
/// what to start.
@Suite("Agent wait", .serialized)
struct AgentWaitTests {
    private static let alice: UInt32 = 61_001
    private static let asRoot = getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")
    private static let app = 1
    private static let diagnostics = 2

    private static func requestInProgress(_ reply: VarlinkReply) -> Bool {
        let flags = reply.parameters["diagnostic"]?["flags"]?.arrayValue ?? []
        return flags.contains(.string("authorizationRequestInProgress"))
    }

    @Test(
        "P14: with no agent, an ordinary user's prompt is dismissed after agent-wait and the log names locd-agent",
        .enabled(if: asRoot, "running a user's process needs root")
    )
    func dismissedPromptlyWithNoAgent() throws {
        let daemon = try DaemonProcess(
            settings: DaemonProcess.lifecycle(promptTimeout: 600) + "\nagent-wait = 0.5"
        )
        try daemon.start()
        let alice = try Person(socket: daemon.socketPath, uid: Self.alice)
        for connection in [Self.app, Self.diagnostics] {
            let hello = try alice.call(
                connection,
                "io.locd.App.Hello",
                ["appId": .string("com.ex.maps"), "state": .string("foreground")]
            )
            #expect(hello.error == nil, "\(hello)")
        }
        let created = try alice.call(Self.app, "io.locd.App.CreateSession", ["authorization": .string("whenInUse")])
        let id = try #require(created.parameters["session"]?["id"]?.stringValue, "\(created)")
        alice.send(Self.diagnostics, "io.locd.App.SessionDiagnostics", ["id": .string(id)], more: true)
        // The prompt is dismissed: the session's diagnostics say so long before prompt-timeout (600 s).
        var reply = try alice.next(on: Self.diagnostics)
        while Self.requestInProgress(reply) { reply = try alice.next(on: Self.diagnostics, timeout: 30) }
        let status = try daemon.connect().call("io.locd.Admin.Status")["status"]
        #expect(status?["pendingPrompts"] == .int(0))
        let authorization = try alice.call(Self.app, "io.locd.App.GetAuthorization")
        #expect(authorization.parameters["authorization"]?["status"] == .string("notDetermined"), "not a denial")
        let log = daemon.logSoFar
        #expect(log.contains("no agent is running for uid \(Self.alice)") && log.contains("locd-agent"), "\(log)")
    }
}
