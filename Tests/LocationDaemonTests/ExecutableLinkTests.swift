import Foundation
import LocationTestSupport
import Testing
import Varlink

#if canImport(Glibc)
import Glibc
#endif

/// SEMANTICS M5 and I13 against the real daemon: a link named in a manifest or a `[[broker]]` is the program it
/// leads to, resolved at start and at each reload, and a broker's path that resolves nowhere stops start-up.
@Suite("Executable links", .serialized)
struct ExecutableLinkTests {
    /// Where python3 really is: /proc/PID/exe of a python process names it.
    private static let python = ExecutableManifests.python

    /// A manifest of `id` that verifies its app by `executables`.
    private static func manifest(_ id: String, executables: [String]) -> String {
        let list = executables.map { "\"\($0)\"" }.joined(separator: ", ")
        return """
            id = "\(id)"
            identity = "executable"
            executables = [\(list)]
            NSLocationWhenInUseUsageDescription = "Linked"
            """
    }

    /// The reply to python3 saying `Hello` as `app` (raw_client.py, run with /usr/bin/python3, itself a link).
    private func pythonHello(_ app: String, _ daemon: DaemonProcess) throws -> VarlinkReply? {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Scripts/raw_client.py").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [
            script, daemon.socketPath, #"{"method":"io.locd.App.Hello","parameters":{"appId":"\#(app)"}}"#,
        ]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitForExit()
        let line = String(decoding: data, as: UTF8.self).split(separator: "\n").last.map(String.init)
        return line.flatMap { VarlinkReply.decode(Array($0.utf8)) }
    }

    /// The line of the daemon's configuration file that contains `text` (1-based).
    private func line(of text: String, in daemon: DaemonProcess) throws -> Int? {
        let config = try String(contentsOfFile: daemon.configPath, encoding: .utf8)
        return config.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.contains(text) }
            .map { $0 + 1 }
    }

    @Test("M5: a manifest naming a link to python3 accepts Hello from the process running its target")
    func manifestLink() throws {
        let links = try TemporaryDirectory(prefix: "locd-links")
        defer { links.remove() }
        let link = links.at("app-python")
        let other = links.at("app-sleep")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "/usr/bin/python3")
        try FileManager.default.createSymbolicLink(atPath: other, withDestinationPath: "/usr/bin/sleep")
        let manifests = [
            "com.ex.linked": Self.manifest("com.ex.linked", executables: [link]),
            "com.ex.elsewhere": Self.manifest("com.ex.elsewhere", executables: [other]),
        ]
        let daemon = try DaemonProcess(manifests: manifests)
        try daemon.start()
        let accepted = try pythonHello("com.ex.linked", daemon)
        #expect(
            accepted?.error == nil && accepted?.parameters["authorization"] != nil,
            "\(String(describing: accepted))"
        )
        // A refusal's log names the path written and the resolved one it compared with.
        let refused = try pythonHello("com.ex.elsewhere", daemon)
        #expect(refused?.error == "org.varlink.service.PermissionDenied")
        let sleep = URL(fileURLWithPath: "/usr/bin/sleep").resolvingSymlinksInPath().path
        #expect(
            eventually(timeout: 5) {
                daemon.logSoFar.split(separator: "\n").contains {
                    $0.contains("refused io.locd.App.Hello") && $0.contains("executable \(Self.python) of pid")
                        && $0.contains("\(other) (resolved: \(sleep))")
                }
            },
            "\(daemon.logSoFar)"
        )
    }

    @Test(
        "M5: a manifest path that does not exist is a warning naming file, line and key; it matches nothing until the reload after it is installed"
    )
    func manifestPathInstalledLater() throws {
        let links = try TemporaryDirectory(prefix: "locd-links")
        defer { links.remove() }
        let later = links.at("later-python")
        let daemon = try DaemonProcess(manifests: ["com.ex.later": Self.manifest("com.ex.later", executables: [later])])
        try daemon.start()
        let file = daemon.appsDirectory + "/com.ex.later.toml"
        #expect(
            eventually(timeout: 5) {
                daemon.logSoFar.contains("\(file):3: key executables: \"\(later)\" does not exist: not installed")
            },
            "\(daemon.logSoFar)"
        )
        #expect(try pythonHello("com.ex.later", daemon)?.error == "org.varlink.service.PermissionDenied")

        try FileManager.default.createSymbolicLink(atPath: later, withDestinationPath: "/usr/bin/python3")
        // Installed but not yet reloaded: what was resolved at start still holds.
        #expect(try pythonHello("com.ex.later", daemon)?.error == "org.varlink.service.PermissionDenied")
        let reloaded = try LocctlBinary.run(["reload"], socket: daemon.socketPath)
        #expect(reloaded.status == 0, "\(reloaded.errors)")
        let accepted = try pythonHello("com.ex.later", daemon)
        #expect(
            accepted?.error == nil && accepted?.parameters["authorization"] != nil,
            "\(String(describing: accepted))"
        )
    }

    @Test(
        "I13: a [[broker]] executable that is a dangling link or a loop of links stops start-up with exit 78 naming file, line and key"
    )
    func brokerPathThatNamesNothing() throws {
        let links = try TemporaryDirectory(prefix: "locd-links")
        defer { links.remove() }
        let fileManager = FileManager.default
        try fileManager.createSymbolicLink(atPath: links.at("dangling"), withDestinationPath: links.at("gone"))
        try fileManager.createSymbolicLink(atPath: links.at("loop-a"), withDestinationPath: links.at("loop-b"))
        try fileManager.createSymbolicLink(atPath: links.at("loop-b"), withDestinationPath: links.at("loop-a"))
        for (path, says) in [(links.at("dangling"), "is a dangling link"), (links.at("loop-a"), "is a loop of links")] {
            let daemon = try DaemonProcess(
                settings: DaemonProcess.fastLifecycle + DaemonProcess.broker(executable: path)
            )
            #expect(throws: NotifySocket.SenderExited.self) { try daemon.start() }
            #expect(daemon.stop() == 78)
            let line = try #require(try line(of: "executable = \"\(path)\"", in: daemon))
            let place = "\(daemon.configPath):\(line): key broker[1].executable: \"\(path)\" \(says)"
            let lines = daemon.errorOutput.split(separator: "\n").filter { $0.contains(place) }
            #expect(lines.count == 1, "\(daemon.errorOutput)")
            #expect(lines.first?.contains("install the broker") == true)
        }
    }

    @Test("I13, M2: a reload whose [[broker]] executable has come to resolve nowhere is refused, and the broker kept")
    func brokerReloadRefused() throws {
        let links = try TemporaryDirectory(prefix: "locd-links")
        defer { links.remove() }
        let link = links.at("broker")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "/usr/bin/sleep")
        let daemon = try DaemonProcess(settings: DaemonProcess.fastLifecycle + DaemonProcess.broker(executable: link))
        try daemon.start()
        try FileManager.default.removeItem(atPath: link)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: links.at("gone"))
        let refused = try LocctlBinary.run(["reload"], socket: daemon.socketPath)
        #expect(refused.status == 1)
        #expect(refused.errors.contains("org.varlink.service.InvalidParameter"), "\(refused.errors)")
        #expect(refused.errors.contains("\(daemon.configPath):"), "\(refused.errors)")
        #expect(
            refused.errors.contains("key broker[1].executable: \"\(link)\" is a dangling link"),
            "\(refused.errors)"
        )
        #expect(try LocctlBinary.run(["status"], socket: daemon.socketPath).status == 0)
    }
}
