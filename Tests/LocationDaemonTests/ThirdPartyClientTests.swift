import Foundation
import JSON
import LocationTestSupport
import Testing
import Varlink

/// PROTOCOL: locd interoperates with an independent Varlink implementation.
@Suite("Third-party client", .serialized)
struct ThirdPartyClientTests {
    @Test("PROTOCOL: the Python varlink package parses our IDL, says Hello, creates a session and streams")
    func pythonVarlink() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Scripts/third_party_client.py").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: PythonVarlink.interpreter)
        process.arguments = [script, daemon.socketPath]
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let problems = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(
            process.waitForExit().status == 0,
            "python varlink client failed: \(problems)\n\(PythonVarlink.installHint)"
        )
        let seen = try #require(JSONValue.parse(Array(data)))
        #expect(
            seen["interfaces"]
                == .array([.string("org.varlink.service"), .string("io.locd.App"), .string("io.locd.Admin")])
        )
        #expect(seen["admin_status_version"] == .string("0.1.0"))
        #expect(seen["status"] == .string("notDetermined"))
        #expect(seen["session_state"] == .string("limited"))
        #expect(seen["session_flags"] == .array([.string("authorizationRequestInProgress")]))
        #expect(seen["stream_flags"] == .array([.string("authorizationRequestInProgress")]))
        #expect(seen["stream_ended"] == .bool(false))
    }

    @Test("README: its Python example runs against locd and prints the error locd sent for a bad value, as sent")
    func readmePythonExample() throws {
        let readme = try String(contentsOfFile: Repository.root() + "/README.md", encoding: .utf8)
        let blocks = Self.fencedBlocks(readme, language: "python")
        try #require(blocks.count == 1, "README shows \(blocks.count) Python blocks, not one")
        let example = try #require(blocks.first)
        #expect(example.contains("unix:.run/io.locd"), "the example talks to the demo's socket")
        #expect(!example.contains("namespaced=True"), "namespaced=True turns InvalidParameter into AttributeError")

        let manifest = try String(
            contentsOfFile: Repository.root() + "/config/apps.d/com.example.maps.toml",
            encoding: .utf8
        )
        // A relaunch window longer than the test: the session the example leaves lingering is still listed after.
        let daemon = try DaemonProcess(
            manifests: ["com.example.maps": manifest],
            settings: DaemonProcess.lifecycle(relaunchWindow: 600)
        )
        try daemon.start()
        // Run where the example expects the demo: `.run/io.locd` here is the test daemon's socket.
        let checkout = try TemporaryDirectory(prefix: "locd-readme").path
        defer { try? FileManager.default.removeItem(atPath: checkout) }
        try FileManager.default.createSymbolicLink(
            atPath: checkout + "/.run",
            withDestinationPath: daemon.directory.path
        )
        try example.write(toFile: checkout + "/hello.py", atomically: true, encoding: .utf8)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: PythonVarlink.interpreter)
        process.arguments = ["hello.py"]
        process.currentDirectoryURL = URL(fileURLWithPath: checkout)
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let problems = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.waitForExit().status == 0, "\(problems)\n\(PythonVarlink.installHint)")
        #expect(problems.isEmpty, "no traceback: \(problems)")
        let lines = printed.split(separator: "\n").map(String.init)
        let session = try daemon.connect().call("io.locd.Admin.ListSessions", ["appId": .string("com.example.maps")])
        let id = session["sessions"]?.arrayValue?.first?["id"]?.stringValue
        #expect(lines == [id ?? "(no session)", "org.varlink.service.InvalidParameter {'parameter': 'authorization'}"])
    }

    /// The bodies of the fenced blocks of `language` in a Markdown text.
    static func fencedBlocks(_ text: String, language: String) -> [String] {
        var blocks: [String] = []
        var block: [Substring]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if block == nil, line == "```" + language {
                block = []
            } else if let lines = block, line == "```" {
                blocks.append(lines.joined(separator: "\n") + "\n")
                block = nil
            } else if block != nil {
                block?.append(line)
            }
        }
        return blocks
    }
}
