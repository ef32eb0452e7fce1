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
        process.waitUntilExit()
        #expect(
            process.terminationStatus == 0,
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
}
