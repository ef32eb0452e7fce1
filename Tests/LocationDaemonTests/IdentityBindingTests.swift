import Foundation
import LocationTestSupport
import Testing
import Varlink

#if canImport(Glibc)
import Glibc
#endif

/// SEMANTICS I4–I7 against the real daemon: Hello is checked against the process that wrote it, privilege
/// against the credentials of connect, and refusals are logged without flooding and answered without detail.
@Suite("Identity binding", .serialized)
struct IdentityBindingTests {
    private static let python = ExecutableManifests.python
    private static let manifests = ExecutableManifests.all

    /// Runs one of the test scripts (as uid/gid 65534 through setpriv if `asNobody`), returns its stdout lines.
    private func script(
        _ name: String,
        _ arguments: [String],
        asNobody: Bool = false,
        groups: String? = nil
    )
        throws -> [String]
    {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Scripts/\(name)").path
        let process = Process()
        if asNobody {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            let groupArguments = groups.map { ["--groups=\($0)"] } ?? ["--clear-groups"]
            process.arguments =
                ["--reuid=65534", "--regid=65534"] + groupArguments + ["/usr/bin/python3", path] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            process.arguments = [path] + arguments
        }
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitForExit()
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    private func reply(_ line: String?) -> VarlinkReply? {
        line.flatMap { VarlinkReply.decode(Array($0.utf8)) }
    }

    @Test("I4: a child that kept the socket of a parent that exec'd the app's executable cannot say Hello")
    func forkExecAttack() throws {
        let daemon = try DaemonProcess(manifests: Self.manifests)
        try daemon.start()
        let lines = try script("fork_exec_hello.py", [daemon.socketPath, "/usr/bin/sleep", "com.ex.sleeper"])
        let answer = try #require(reply(lines.last), "no reply: \(lines)")
        #expect(answer.error == "org.varlink.service.PermissionDenied")
        // I7: the answer names neither the executable found nor the manifest's file.
        let message = answer.parameters["message"]?.stringValue ?? ""
        #expect(message.contains("com.ex.sleeper"))
        #expect(!message.contains("/usr/bin") && !message.contains(".toml"))
        #expect(daemon.stop() == 0)
        let refusal = daemon.errorOutput.split(separator: "\n").first { $0.contains("refused io.locd.App.Hello") }
        #expect(refusal?.contains("executable \(Self.python)") == true)
    }

    @Test("I4: Hello from the process that runs the app's executable passes, after service calls too")
    func legitimateClient() throws {
        let daemon = try DaemonProcess(manifests: Self.manifests)
        try daemon.start()
        let lines = try script(
            "raw_client.py",
            [
                daemon.socketPath,
                #"{"method":"org.varlink.service.GetInterfaceDescription","parameters":{"interface":"io.locd.App"}}"#,
                #"{"method":"io.locd.App.Hello","parameters":{"appId":"com.ex.python"}}"#,
                #"{"method":"io.locd.App.ListSessions"}"#,
            ]
        )
        #expect(lines.count == 3)
        #expect(lines.compactMap { reply($0) }.map(\.error) == [nil, nil, nil])
    }

    @Test("I4: a Hello whose bytes two processes wrote has no single sender and is refused")
    func twoWriters() throws {
        let daemon = try DaemonProcess(manifests: Self.manifests)
        try daemon.start()
        let lines = try script("split_hello.py", [daemon.socketPath, "com.ex.python"])
        #expect(reply(lines.last)?.error == "org.varlink.service.PermissionDenied")
        #expect(daemon.stop() == 0)
        #expect(daemon.errorOutput.contains("written by more than one process"))
    }

    @Test("I4: the writer's pidfd is let go once Hello is checked: an open connection holds one descriptor")
    func pidfdReleased() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        func descriptors() throws -> Int {
            try FileManager.default.contentsOfDirectory(atPath: "/proc/\(daemon.pid)/fd").count
        }
        let before = try descriptors()
        // 30 of each app: max-clients-per-app is 32.
        let clients = try ["com.ex.maps", "com.ex.run", "com.ex.explicit"].flatMap { app in
            try (0..<30).map { _ in try daemon.app(app) }
        }
        let held = try descriptors() - before
        // One socket per connection, and a few for the store or name lookups; a pidfd each would be 180.
        #expect(held >= 90 && held < 110, "\(held) descriptors for 90 connections")
        _ = clients
    }

    @Test("I5: a Hello after the connection's first call is refused with what to do")
    func lateHello() throws {
        let daemon = try DaemonProcess(manifests: Self.manifests)
        try daemon.start()
        let lines = try script(
            "raw_client.py",
            [
                daemon.socketPath, #"{"method":"io.locd.Admin.Status"}"#,
                #"{"method":"io.locd.App.Hello","parameters":{"appId":"com.ex.python"}}"#,
            ]
        )
        let answer = try #require(reply(lines.last), "no reply: \(lines)")
        #expect(answer.error == "org.varlink.service.PermissionDenied")
        #expect(answer.parameters["message"]?.stringValue?.contains("first call on a new connection") == true)
    }

    @Test(
        "I3: a member of the admin group by a supplementary group may administer",
        .enabled(if: getuid() == 0, "running a client as another user needs root")
    )
    func supplementaryGroup() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        // The daemon's admin-group is root (gid 0): uid 65534 with the supplementary group 0.
        let lines = try script(
            "raw_client.py",
            [daemon.socketPath, #"{"method":"io.locd.Admin.Status"}"#],
            asNobody: true,
            groups: "0"
        )
        #expect(reply(lines.last)?.error == nil)
        #expect(reply(lines.last)?.parameters["status"] != nil)
    }

    @Test(
        "I3: a connection whose process exited gets no privilege from the admin-group process that took its pid",
        .enabled(
            if: getuid() == 0 && access("/proc/sys/kernel/ns_last_pid", W_OK) == 0,
            "choosing the next pid needs root"
        )
    )
    func pidReuse() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let lines = try script("pid_reuse_admin.py", [daemon.socketPath])
        #expect(lines.last?.hasPrefix("reused ") == true, "\(lines)")
        #expect(reply(lines.first)?.error == "org.varlink.service.PermissionDenied")
    }

    @Test(
        "I6: a flood of refused Admin calls (Reload, an administrator's, H4) writes a line and a count, not a line per call",
        .enabled(if: getuid() == 0, "running a client as another user needs root")
    )
    func refusalFlood() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let count = 20_000
        let started = Date()
        let lines = try script(
            "flood_client.py",
            [daemon.socketPath, "\(count)", #"{"method":"io.locd.Admin.Reload"}"#],
            asNobody: true
        )
        let elapsed = Date().timeIntervalSince(started)
        #expect(lines.last == #"{"org.varlink.service.PermissionDenied": \#(count)}"#)
        #expect(daemon.stop() == 0)
        let logged = daemon.errorOutput.split(separator: "\n").filter { $0.contains("refused io.locd.Admin.Reload") }
        // Each window of 10 s writes at most one full line and one summary; the summaries count the rest.
        let windows = Int(elapsed / 10) + 1
        let full = logged.filter { $0.contains("locd.pid=") }
        let counted = logged.compactMap { line -> Int? in
            guard let range = line.range(of: #"Reload (\d+) more times"#, options: .regularExpression) else {
                return nil
            }
            return Int(line[range].dropFirst("Reload ".count).prefix { $0.isNumber })
        }
        #expect(full.count >= 1 && full.count <= windows)
        #expect(logged.count <= 2 * windows)
        #expect(full.count + counted.reduce(0, +) == count)
    }

    @Test(
        "I7: PermissionDenied for Admin says what to do and names nothing of the system",
        .enabled(if: getuid() == 0, "running a client as another user needs root")
    )
    func adminAnswer() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let lines = try script(
            "raw_client.py",
            [daemon.socketPath, #"{"method":"io.locd.Admin.Reload"}"#],
            asNobody: true
        )
        let answer = try #require(reply(lines.last))
        #expect(answer.error == "org.varlink.service.PermissionDenied")
        let message = answer.parameters["message"]?.stringValue ?? ""
        #expect(message.contains("admin group") && message.contains("log"))
        #expect(!message.contains("uid 65534"))
        #expect(daemon.stop() == 0)
        #expect(daemon.errorOutput.contains("uid 65534 is not root"))
    }
}
