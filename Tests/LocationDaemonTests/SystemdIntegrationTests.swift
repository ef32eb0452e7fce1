import Foundation
import LocationTestSupport
import Testing
import Varlink

#if canImport(Glibc)
import Glibc
#endif

/// The daemon as systemd runs it: sd_notify states, socket activation, reload and stop.
@Suite("systemd integration", .serialized)
struct SystemdIntegrationTests {
    @Test("systemd: READY=1 carries STATUS counts; SIGTERM sends STOPPING=1 and exits 0")
    func readyAndStopping() throws {
        let daemon = try DaemonProcess()
        let lines = try daemon.start()
        #expect(lines.contains { $0.hasPrefix("STATUS=serving 3 apps") })
        daemon.signal(SIGTERM)
        try daemon.notify.waitFor("STOPPING=1", timeout: 10)
        #expect(daemon.stop() == 0)
    }

    @Test("systemd: WATCHDOG=1 is sent at half of WATCHDOG_USEC, the first after READY=1")
    func watchdog() throws {
        let daemon = try DaemonProcess()
        // WATCHDOG_PID must name the daemon; without it sd_watchdog_enabled accepts any pid.
        let startUp = try daemon.start(environment: ["WATCHDOG_USEC": "200000"])
        #expect(!startUp.contains("WATCHDOG=1"), "pinged before READY=1: \(startUp)")
        try daemon.notify.waitFor("WATCHDOG=1", timeout: 5)
        try daemon.notify.waitFor("WATCHDOG=1", timeout: 5)
        #expect(daemon.stop() == 0)
    }

    @Test("M2: SIGHUP reloads manifests between RELOADING=1 and READY=1 without dropping sessions")
    func reload() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let app = try daemon.app("com.ex.maps")
        let id = try #require(try app.call("io.locd.App.CreateSession", ["authorization": .string("none")]).sessionID)
        try """
        id = "com.ex.late"
        identity = "any"
        NSLocationWhenInUseUsageDescription = "Arrived with a reload"
        """.write(toFile: "\(daemon.appsDirectory)/com.ex.late.toml", atomically: true, encoding: .utf8)
        #expect(errorName { _ = try daemon.app("com.ex.late") } == "io.locd.App.AppUnknown")
        daemon.signal(SIGHUP)
        let lines = try daemon.notify.waitFor("READY=1", timeout: 10)
        #expect(lines.contains("RELOADING=1"))
        #expect(lines.contains { $0.hasPrefix("MONOTONIC_USEC=") })
        _ = try daemon.app("com.ex.late")
        let sessions = try app.call("io.locd.App.ListSessions")["sessions"]?.arrayValue ?? []
        #expect(sessions.map { $0["id"] } == [.string(id)])
    }

    @Test("systemd: socket activation through systemd-socket-activate serves the passed listener")
    func socketActivation() throws {
        let activate = "/usr/bin/systemd-socket-activate"
        try #require(FileManager.default.isExecutableFile(atPath: activate), "systemd-socket-activate is missing")
        let daemon = try DaemonProcess()
        let activated = daemon.directory.appendingPathComponent("activated.sock").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: activate)
        process.arguments = [
            "-l", activated, "-E", "NOTIFY_SOCKET=\(daemon.notify.path)", DaemonProcess.binary,
            "--config", daemon.configPath,
        ]
        let announcements = Pipe()
        process.standardError = announcements
        try process.run()
        defer {
            if process.isRunning { process.signalAndWait(SIGTERM) }
        }
        // systemd-socket-activate says "Listening on PATH as 3." once bound, and starts locd on the first
        // connection.
        var said = ""
        while !said.contains("Listening on") {
            let chunk = announcements.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            said += String(decoding: chunk, as: UTF8.self)
        }
        #expect(said.contains("Listening on \(activated)"))
        let connected = try VarlinkClient(path: activated, timeout: 10)
        #expect(try connected.call("org.varlink.service.GetInfo")["product"] == .string("locd"))
        try daemon.notify.waitFor("READY=1", timeout: 10)
        #expect(!FileManager.default.fileExists(atPath: daemon.socketPath), "the configured path was not bound")
    }

    @Test(
        "I4, I8: a broker's Hello written before a socket-activated locd runs is judged by its writer when the socket was made with PassCredentials=yes; without it the refusal says to connect again and locd says what to add"
    )
    func helloWrittenBeforeActivation() throws {
        for passcred in ["yes", "no"] {
            let daemon = try DaemonProcess(
                manifests: ExecutableManifests.all,
                settings: DaemonProcess.fastLifecycle + DaemonProcess.broker(executable: ExecutableManifests.python)
            )
            let activated = daemon.directory.appendingPathComponent("activated.sock").path
            let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .appendingPathComponent("Scripts/early_hello.py").path
            let result = try Self.run(
                ExecutableManifests.python,
                [script, DaemonProcess.binary, daemon.configPath, activated, passcred],
                errors: daemon.directory.appendingPathComponent("early.err").path
            )
            let reply = VarlinkReply.decode(Array(result.output.utf8.prefix { $0 != UInt8(ascii: "\n") }))
            if passcred == "yes" {
                #expect(reply?.error == nil, "\(result)")
                #expect(reply?.parameters["authorization"] != nil, "\(result)")
            } else {
                #expect(reply?.error == "org.varlink.service.PermissionDenied", "\(result)")
                let message = reply?.parameters["message"]?.stringValue ?? ""
                #expect(message.contains("connect again"), "\(message)")
                #expect(result.errors.contains("add PassCredentials=yes to the .socket unit"), "\(result.errors)")
            }
        }
    }

    /// Runs `executable` with `arguments` to its end: its standard output, and its standard error from a file (locd,
    /// which it starts, writes there too, and may outlive a pipe's reader by a moment).
    private static func run(
        _ executable: String,
        _ arguments: [String],
        errors: String
    ) throws -> (output: String, errors: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(["INVOCATION_ID": "", "JOURNAL_STREAM": ""]) {
            $1
        }
        let output = Pipe()
        process.standardOutput = output
        _ = FileManager.default.createFile(atPath: errors, contents: nil)
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errors))
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitForExit()
        return (String(decoding: data, as: UTF8.self), (try? String(contentsOfFile: errors, encoding: .utf8)) ?? "")
    }
}
