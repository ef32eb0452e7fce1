import Foundation
import JSON
import LocationTestSupport
import ProcessIdentity
import Testing
import Varlink

@testable import LocationClient

#if canImport(Glibc)
import Glibc
#endif

/// `LocationClient.connect(appID:socketPath:onBehalfOf:description:)` against the real daemon: the test process is
/// the broker (its user and executable are a `[[broker]]`'s), and a `sleep` it starts is the app process spoken for.
@Suite("LocationClient as a broker", .serialized)
struct BrokeredClientTests {
    /// com.ex.sleeper allows only /usr/bin/sleep, so that the test process could never say Hello for it itself.
    static let manifests: [String: String] = [
        "com.ex.sleeper": """
        id = "com.ex.sleeper"
        identity = "executable"
        executables = ["/usr/bin/sleep"]
        NSLocationWhenInUseUsageDescription = "Sleeps"
        """
    ]

    /// A `sleep` to speak for, and a pidfd of it; killed and closed at the end. It sleeps for ever: a loaded machine
    /// can stretch a restart test past any fixed time, and an app process gone meanwhile ends its brokered client.
    final class AppProcess {
        let process = Process()
        let pidfd: Int32

        init() throws {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/sleep")
            process.arguments = ["infinity"]
            try process.run()
            guard let pidfd = ProcessFacts.openPidfd(process.processIdentifier) else {
                throw LocationClientError.invalidParameter(parameter: "pidfd", message: "pidfd_open failed")
            }
            self.pidfd = pidfd
        }

        var reference: ProcessReference { ProcessReference(pid: process.processIdentifier, pidfd: pidfd) }

        deinit {
            close(pidfd)
            process.signalAndWait(SIGKILL)
        }
    }

    /// A daemon whose brokers are processes of the test's user running these executables. Its relaunch window is long
    /// enough that a reconnection slowed by a loaded machine (the whole suite shares two cores) still finds the
    /// session to take back.
    private func daemon(brokers: [String]) throws -> DaemonProcess {
        let daemon = try DaemonProcess(
            manifests: Self.manifests,
            settings: DaemonProcess.lifecycle(relaunchWindow: 60)
                + brokers.map { DaemonProcess.broker(executable: $0) }.joined()
        )
        try daemon.start()
        return daemon
    }

    /// How many of this process's descriptors are pidfds of `pid`: read by pid, so that descriptors other tests
    /// open meanwhile do not count.
    private static func pidfds(of pid: Int32) -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return names.compactMap { Int32($0) }.filter { ProcessFacts().pid(ofPidfd: $0) == pid }.count
    }

    @Test(
        "I8, I9: every Hello of a brokered client (control, stream, and again after a restart) speaks for the process"
    )
    func brokeredAcrossRestart() async throws {
        let own = try #require(ProcessFacts().executable(of: getpid()))
        let daemon = try daemon(brokers: [own])
        try daemon.authorize("com.ex.sleeper", "whileUsing")
        let app = try AppProcess()
        // Under the whole suite the stream, the restart and the reconnection's tasks wait for threads other tests
        // hold: the client keeps trying for two minutes, as the waits below do, rather than the usual 30 s.
        let client = try await LocationClient.connect(
            appID: "com.ex.sleeper",
            socketPath: daemon.socketPath,
            onBehalfOf: app.reference,
            reconnection: ReconnectPolicy(maximumDelay: .milliseconds(200), giveUpAfter: .seconds(120))
        )
        // The stream's connection says Hello of its own: without the pidfd it would be the test process's, refused.
        let session = try await client.serviceSession(authorization: .whenInUse)
        let diagnostics = Inbox<ServiceSession.Diagnostic>.collecting(session.diagnostics)
        #expect(try await diagnostics.element(0, timeout: 120).flags.isEmpty)

        #expect(daemon.stop() == 0)
        try daemon.start()
        // The reconnection says the brokered Hello again and takes the session back; the stream reopens.
        let resumed = try await eventually(timeout: 120) {
            let listed = try daemon.connect().call("io.locd.Admin.ListSessions", ["appId": .string("com.ex.sleeper")])
            return listed["sessions"]?.arrayValue?.map { [$0["id"], $0["state"]] }
                == [[.string(session.id), .string("active")]]
        }
        #expect(resumed)
        try daemon.connect().call("io.locd.Admin.SetLocationServices", ["enabled": .bool(false)])
        #expect(try await diagnostics.element(1, timeout: 120).authorizationDeniedGlobally)
        #expect(await diagnostics.outcome == nil)
        #expect(try await client.authorization.status == .authorizedWhenInUse)
        await client.close()
        #expect(try await diagnostics.end() == .finished)
    }

    @Test("I10: a brokered client keeps one duplicate of the pidfd, and closes it when it is gone")
    func noDescriptorLeak() async throws {
        let own = try #require(ProcessFacts().executable(of: getpid()))
        let daemon = try daemon(brokers: [own])
        let app = try AppProcess()
        let pid = app.process.processIdentifier
        #expect(Self.pidfds(of: pid) == 1)
        for round in 0..<20 {
            let client = try await LocationClient.connect(
                appID: "com.ex.sleeper",
                socketPath: daemon.socketPath,
                onBehalfOf: app.reference
            )
            for try await _ in client.authorizationUpdates { break }
            // One duplicate for the client, however many connections said Hello with it (before later rounds,
            // whose predecessors may still be winding down).
            if round == 0 { #expect(Self.pidfds(of: pid) == 2) }
            await client.close()
        }
        // The caller's own pidfd is untouched and still names the app process; every duplicate is closed.
        #expect(ProcessFacts().pid(ofPidfd: app.pidfd) == pid)
        let settled = try await eventually { Self.pidfds(of: pid) == 1 }
        #expect(settled, "\(Self.pidfds(of: pid)) pidfds of the app process are open")
    }

    @Test("I8: a process that is no broker cannot connect on behalf of another: PermissionDenied says what to do")
    func notABroker() async throws {
        let daemon = try daemon(brokers: [])
        let app = try AppProcess()
        let error = await #expect(throws: LocationClientError.self) {
            try await LocationClient.connect(
                appID: "com.ex.sleeper",
                socketPath: daemon.socketPath,
                onBehalfOf: app.reference
            )
        }
        guard case .permissionDenied(let message)? = error else {
            Issue.record("expected PermissionDenied, got \(String(describing: error))")
            return
        }
        #expect(message.contains("only a broker"))
    }

    @Test("I9: a broker's client for a process the manifest does not allow is refused, though the broker is named")
    func processNotAllowed() async throws {
        let own = try #require(ProcessFacts().executable(of: getpid()))
        let daemon = try daemon(brokers: [own])
        // The test process itself is no /usr/bin/sleep.
        let pidfd = try #require(ProcessFacts.openPidfd(getpid()))
        defer { close(pidfd) }
        let error = await #expect(throws: LocationClientError.self) {
            try await LocationClient.connect(
                appID: "com.ex.sleeper",
                socketPath: daemon.socketPath,
                onBehalfOf: ProcessReference(pid: getpid(), pidfd: pidfd)
            )
        }
        #expect(error?.varlinkName == "org.varlink.service.PermissionDenied")
    }

    @Test("I9: a pidfd that is no open descriptor fails at once with InvalidParameter, before any connection")
    func badPidfd() async throws {
        let error = await #expect(throws: LocationClientError.self) {
            try await LocationClient.connect(
                appID: "com.ex.sleeper",
                socketPath: "/nonexistent/io.locd",
                onBehalfOf: ProcessReference(pid: getpid(), pidfd: -1)
            )
        }
        guard case .invalidParameter(let parameter, _)? = error else {
            Issue.record("expected InvalidParameter, got \(String(describing: error))")
            return
        }
        #expect(parameter == "pidfd")
    }
}
